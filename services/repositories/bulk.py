"""Multi-row INSERTs in slices, through Core (no per-row ORM bookkeeping)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Table, insert
from sqlalchemy.ext.asyncio import AsyncSession

from models import Base

# Rows per statement: big enough to amortise the round trip, small enough for any driver.
ROWS_PER_INSERT = 5000


async def insert_rows(
    session: AsyncSession, model: type[Base], rows: Sequence[dict[str, Any]]
) -> None:
    """INSERT ``rows`` (column name → value) into ``model``'s table."""
    table = cast(Table, model.__table__)
    for start in range(0, len(rows), ROWS_PER_INSERT):
        await session.execute(insert(table), list(rows[start : start + ROWS_PER_INSERT]))
