"""A write that waits past DB_LOCK_TIMEOUT_MS for another transaction's lock is 503;
any other failure is a 500, both in the service's error shape.

With the real engine on both databases: another unit of work holds the lock (on SQLite
the write lock, on PostgreSQL the user's row that every write of the user takes first),
and the app's engine waits at most 200 ms for it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

from api.app import create_app
from services.core.db import Database, build_engine, is_contention
from services.core.settings import Settings
from services.remembering.memory_service import MemoryService, NewMemory
from services.text.analysis import TextAnalyzer
from tests.conftest import BACKENDS, FakeClock
from tests.db_backends import fresh_database
from tests.factories import delete_users
from tests.timing import lifespan, scaled

USER = "busy-database"


@pytest.fixture
async def real_db(engine: AsyncEngine) -> AsyncIterator[Database]:
    """The session's real engine (commits are real); the test's rows deleted after."""
    database = Database(engine)
    yield database
    async with database.unit_of_work() as session:
        await delete_users(session, USER)


@pytest.fixture
async def impatient_db(database_url: str) -> AsyncIterator[Database]:
    """An engine on the same database that waits at most 200 ms for a lock."""
    database = Database(build_engine(database_url, lock_timeout_ms=200))
    yield database
    await database.dispose()


async def test_a_write_blocked_past_the_lock_timeout_is_503_and_writes_nothing(
    real_db: Database,
    impatient_db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
) -> None:
    app = create_app(settings, db=impatient_db, clock=clock)
    url = f"/v1/users/{USER}/memories"
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http,
    ):
        async with real_db.unit_of_work() as holder:
            await MemoryService(holder, settings, analyzer, clock).add(
                USER, NewMemory(content="an add that holds its locks a while")
            )
            blocked = await asyncio.wait_for(
                http.post(url, json={"content": "the spare key is in the shed"}), timeout=scaled(20)
            )
        assert blocked.status_code == 503
        assert blocked.headers["retry-after"] == "1"
        error = blocked.json()["error"]
        assert error["code"] == "database_busy"
        assert "retry" in error["message"]
        listed = await http.get(url)
        assert [m["content"] for m in listed.json()["items"]] == [
            "an add that holds its locks a while"
        ]
        # The lock released, the same request succeeds.
        retried = await http.post(url, json={"content": "the spare key is in the shed"})
        assert retried.status_code == 201


async def test_other_database_errors_are_not_contention(real_db: Database) -> None:
    with pytest.raises(DBAPIError) as raised:
        async with real_db.unit_of_work() as session:
            await session.execute(text("SELECT * FROM no_such_table"))
    assert not is_contention(raised.value)
    assert not is_contention(ValueError("not a database error"))


async def test_a_postgresql_deadlock_is_contention(real_db: Database) -> None:
    if real_db.dialect != "postgresql":
        pytest.skip("SQLite has one writer at a time: no deadlock between two")
    async with real_db.unit_of_work() as session:
        await session.execute(text("DROP TABLE IF EXISTS busy_pair"))
        await session.execute(text("CREATE TABLE busy_pair (id int PRIMARY KEY)"))
        await session.execute(text("INSERT INTO busy_pair VALUES (1), (2)"))
    both_hold_one = asyncio.Barrier(2)

    async def lock_in_order(first: int, second: int) -> None:
        async with real_db.unit_of_work() as session:
            await session.execute(text("UPDATE busy_pair SET id = id WHERE id = :i"), {"i": first})
            await both_hold_one.wait()
            await session.execute(text("UPDATE busy_pair SET id = id WHERE id = :i"), {"i": second})

    try:
        outcomes = await asyncio.wait_for(
            asyncio.gather(lock_in_order(1, 2), lock_in_order(2, 1), return_exceptions=True),
            timeout=scaled(30),
        )
    finally:
        async with real_db.unit_of_work() as session:
            await session.execute(text("DROP TABLE busy_pair"))
    errors = [o for o in outcomes if isinstance(o, BaseException)]
    assert len(errors) == 1, outcomes  # PostgreSQL cancels one; the other goes on
    assert isinstance(errors[0], DBAPIError)
    assert getattr(errors[0].orig, "sqlstate", None) == "40P01"
    assert is_contention(errors[0])


@pytest.mark.parametrize("backend", BACKENDS)
async def test_any_other_error_is_a_500_in_the_error_shape(
    backend: str, tmp_path: Path, settings: Settings, clock: FakeClock
) -> None:
    # A database nobody migrated: "no such table" is no contention, so no 503.
    async with fresh_database(backend, tmp_path) as url:
        database = Database(build_engine(url))
        app = create_app(settings, db=database, clock=clock)
        transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
        try:
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
                response = await http.post(f"/v1/users/{USER}/memories", json={"content": "x y"})
        finally:
            await database.dispose()
    assert response.status_code == 500
    assert response.json() == {
        "error": {"code": "internal_error", "message": "the server failed to answer this request"}
    }
