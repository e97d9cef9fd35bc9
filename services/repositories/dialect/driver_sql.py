"""Fixed statements (recall's, and the add path's), sent as the driver's own SQL on
PostgreSQL.

A ``text()`` statement executed through SQLAlchemy is looked up in the compiled cache,
has its parameters processed and every result value passed through its column type's
processor. For recall's BM25 statement (about 210 rows of 12 columns a recall) that cost
about 0.5 ms of a 6-7 ms recall at 10k memories per user: the same statement and
parameters took 2.81 ms through ``session.execute`` and 2.32 ms through
``exec_driver_sql``, p50 of 450 in one process, alternating.

Here the statement is compiled once for the session's dialect and run with
``exec_driver_sql``, which keeps what matters of SQLAlchemy: the session's connection
and transaction, its exception translation and its cursor events (``bench.diagnose``
times statements by them). What it skips is only safe where the driver already returns
the values the column types would: asyncpg decodes timestamps as UTC-aware datetimes
(what ``UTCDateTime`` returns) and numbers and text as Python's own. On SQLite a
timestamp comes back as text that only the column type parses, so SQLite keeps the
ordinary path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import Dialect, Insert, Result, Row, Select, Update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import TextClause
from sqlalchemy.sql.selectable import TextualSelect

FixedStatement = TextClause | TextualSelect | Select[Any] | Insert | Update
Rows = Sequence[Row[*tuple[Any, ...]]]


@dataclass(frozen=True)
class DriverStatement:
    """A statement in the driver's parameter style, and how to bind its parameters."""

    sql: str
    names: tuple[str, ...]  # the parameters in the driver's order, if positional
    positional: bool
    # The values built into the statement (constants such as scoring weights).
    fixed: Mapping[str, Any]

    def bind(self, params: Mapping[str, Any]) -> tuple[Any, ...] | dict[str, Any]:
        """``params`` and the fixed values, as the driver takes them."""
        merged = {**self.fixed, **params}
        if self.positional:
            return tuple(merged[name] for name in self.names)
        return merged


@lru_cache(maxsize=64)
def driver_statement(statement: FixedStatement, dialect: Dialect) -> DriverStatement:
    """``statement`` compiled for ``dialect`` (once: the statements are built once too).

    A statement whose SQL depends on its values (an expanding ``IN``) cannot be
    compiled ahead; on PostgreSQL a list travels as one array (dialect.one_of_bound).
    """
    compiled = statement.compile(dialect=dialect)
    if compiled.post_compile_params:
        raise ValueError("a fixed statement cannot expand parameters: bind arrays instead")
    names = tuple(compiled.positiontup or ())
    fixed = {k: b.effective_value for k, b in compiled.binds.items() if not b.required}
    return DriverStatement(compiled.string, names, bool(compiled.positional), fixed)


async def fetch_all(
    session: AsyncSession, statement: FixedStatement, params: Mapping[str, Any]
) -> Rows:
    """Every row of a fixed statement (see the module docstring)."""
    return (await _run(session, statement, params)).all()


async def execute(
    session: AsyncSession, statement: FixedStatement, params: Mapping[str, Any]
) -> None:
    """Run a fixed INSERT or UPDATE built once.

    Only for statements the ORM has nothing to do with: a Core UPDATE of the table, or
    an ORM one with ``synchronize_session=False``, whose rows are read back with
    ``populate_existing`` (MemoryRepository.get_many). Their parameters are plain values
    the driver binds as the column types would (asyncpg takes UTC-aware datetimes as
    they are). Every tracked recall runs three such statements, and ``session.execute``
    cost about 0.5 ms of Python each over the statement itself.
    """
    await _run(session, statement, params)


async def _run(
    session: AsyncSession, statement: FixedStatement, params: Mapping[str, Any]
) -> Result[Any]:
    """As the driver's SQL on PostgreSQL, through ``session.execute`` elsewhere.

    ``exec_driver_sql`` skips the session's autoflush, which ``session.execute`` does
    first: a change made to a loaded memory (a repeat's new emotion) would stay in the
    session while this statement (the merge's rescoring) read the old row. So pending
    changes are flushed here as ``session.execute`` would (a test found
    the merge rescored with the old emotion on PostgreSQL only).
    """
    connection = await session.connection()
    dialect = connection.dialect
    if dialect.name != "postgresql":
        return await session.execute(statement, params)
    if session.autoflush and (session.new or session.dirty or session.deleted):
        await session.flush()
    prepared = driver_statement(statement, dialect)
    return await connection.exec_driver_sql(prepared.sql, prepared.bind(params))
