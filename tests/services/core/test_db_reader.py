"""``Database.reader`` and ``Database.one_statement``: how a unit of work that only
reads, or writes one statement, talks to each database."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractAsyncContextManager

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from services.core.db import Database

Opener = Callable[[Database], AbstractAsyncContextManager[AsyncSession]]


async def _in_sqlite_transaction(session: AsyncSession) -> bool:
    await session.execute(text("SELECT 1"))
    connection = await session.connection()
    raw = await connection.get_raw_connection()
    assert raw.driver_connection is not None
    return bool(raw.driver_connection._conn.in_transaction)


async def _statements_have_transactions_of_their_own(session: AsyncSession) -> bool:
    # No BEGIN was sent: each statement is a transaction of its own, so now() (the
    # start of the current transaction) moves between two of them.
    first = await session.scalar(text("SELECT now() FROM pg_sleep(0.01)"))
    second = await session.scalar(text("SELECT now()"))
    return bool(first < second)


@pytest.mark.parametrize(
    "opener",
    [pytest.param(Database.reader, id="reader"), pytest.param(Database.one_statement, id="one")],
)
async def test_autocommit_on_postgresql_and_a_transaction_on_sqlite(
    engine: AsyncEngine, opener: Opener
) -> None:
    # SQLite: the reader's deferred BEGIN reads one WAL snapshot and takes no write
    # lock; one_statement is an ordinary unit of work, which holds the lock from BEGIN.
    db = Database(engine)
    async with opener(db) as session:
        if db.dialect == "postgresql":
            assert await _statements_have_transactions_of_their_own(session)
        else:
            assert await _in_sqlite_transaction(session)


async def test_a_unit_of_work_is_one_transaction_on_postgresql(engine: AsyncEngine) -> None:
    db = Database(engine)
    if db.dialect != "postgresql":
        pytest.skip("the PostgreSQL side of the contrast above")
    async with db.unit_of_work() as session:
        assert not await _statements_have_transactions_of_their_own(session)
