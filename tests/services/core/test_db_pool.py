"""The PostgreSQL pool: a checkout asks the server nothing, and a connection the server
closed is replaced without the caller noticing (services/core/db.py, _check_on_checkout)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from services.core.db import Database, build_engine
from tests.timing import until


@pytest.fixture
async def one_connection_db(engine: AsyncEngine, database_url: str) -> AsyncIterator[Database]:
    """A Database of its own whose pool keeps one connection: checkouts one at a time
    get the same one back."""
    if engine.dialect.name != "postgresql":
        pytest.skip("the pool's checkout check is asyncpg's")
    database = Database(build_engine(database_url, pool_size=1))
    yield database
    await database.dispose()


async def _backend_pid(db: Database) -> int:
    async with db.reader() as session:
        return int(await session.scalar(text("SELECT pg_backend_pid()")) or 0)


async def test_a_checkout_sends_nothing_to_the_server(one_connection_db: Database) -> None:
    sent: list[str] = []
    async with one_connection_db.reader() as session:
        connection = await session.connection()
        raw = await connection.get_raw_connection()
        assert raw.driver_connection is not None
        raw.driver_connection.add_query_logger(lambda record: sent.append(record.query))
        pid = await session.scalar(text("SELECT pg_backend_pid()"))
    await asyncio.sleep(0)  # asyncpg calls its query loggers soon, not at once
    sent.clear()
    # The next checkout gets the same connection back. The logger sees the driver's
    # plain queries, not SQLAlchemy's prepared statements: with pool_pre_ping it saw
    # the ping's ['BEGIN;', ';', 'ROLLBACK;'] here.
    assert await _backend_pid(one_connection_db) == pid
    await asyncio.sleep(0)
    assert sent == []


async def test_a_connection_the_server_closed_is_replaced(
    one_connection_db: Database, engine: AsyncEngine
) -> None:
    first = await _backend_pid(one_connection_db)
    async with engine.connect() as admin:
        killed = await admin.scalar(text("SELECT pg_terminate_backend(:pid)"), {"pid": first})
        await admin.commit()
    assert killed is True

    # The server's goodbye reaches the pooled connection's socket while it sits idle: wait
    # for the backend to be gone, then let the loop read the socket's end.
    async def gone() -> bool:
        async with engine.connect() as probe:
            query = text("SELECT count(*) FROM pg_stat_activity WHERE pid = :pid")
            return bool(await probe.scalar(query, {"pid": first}) == 0)

    await until(gone, "the terminated backend is gone")
    await asyncio.sleep(0.05)
    second = await _backend_pid(one_connection_db)
    assert second != first
