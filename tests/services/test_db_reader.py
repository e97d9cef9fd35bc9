"""``Database.reader``: how a unit of work that only reads talks to each database."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from services.db import Database


async def test_a_reader_reads_without_a_transaction_on_postgresql_and_in_a_snapshot_on_sqlite(
    engine: AsyncEngine,
) -> None:
    db = Database(engine)
    async with db.reader() as session:
        connection = await session.connection()
        if db.dialect == "postgresql":
            # No BEGIN was sent: each statement is a transaction of its own, so now()
            # (the start of the current transaction) moves between two of them.
            first = await session.scalar(text("SELECT now() FROM pg_sleep(0.01)"))
            second = await session.scalar(text("SELECT now()"))
            assert first < second
        else:
            # A deferred BEGIN: one WAL snapshot for every read, and no write lock.
            await session.execute(text("SELECT 1"))
            raw = await connection.get_raw_connection()
            assert raw.driver_connection is not None
            assert raw.driver_connection._conn.in_transaction
