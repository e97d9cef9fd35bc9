"""The one seam for SQL that differs between SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Float, any_, bindparam, text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import InstrumentedAttribute
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement

from services.core.file_lock import try_file_lock

SQLExpr = ColumnElement[Any] | InstrumentedAttribute[Any]

# Any fixed 64-bit number; it names the rescoring job's lock in pg_locks.
RESCORE_LOCK_KEY = 0x4A4D454D  # "JMEM"
# And the embedding backfill's.
EMBED_LOCK_KEY = 0x4A4D4542  # "JMEB"


def group_key(column: SQLExpr) -> ColumnElement[Any]:
    """``column + 0``: the same grouping, but no index ordered by ``column`` can serve it.

    Without statistics SQLite's planner answers ``WHERE user_id = ? AND term IN (…)
    GROUP BY memory_id`` by walking the (user_id, memory_id, term) index to skip the
    sort, which reads every posting of the user instead of the few of the query's
    terms. Grouping by an expression leaves it only the primary key (user_id, term, …).
    PostgreSQL plans the same either way.
    """
    return (column + 0).label(column.key)


def one_of(dialect: str, column: SQLExpr, values: Collection[Any]) -> ColumnElement[bool]:
    """``column IN values``, as one array parameter on PostgreSQL: ``column = ANY($1)``.

    SQLAlchemy renders an expanding ``IN`` on asyncpg as one typed placeholder per value
    (``$1::BIGINT, $2::BIGINT, …``) on every execution; for the few hundred ids a recall
    passes, that rendering cost more CPU than PostgreSQL spent answering (profiled with
    pyinstrument). One array keeps the statement text fixed. SQLite keeps the
    plain ``IN`` list, which it plans as index probes and renders cheaply.
    """
    if dialect == "postgresql":
        return column == any_(bindparam(None, list(values), type_=ARRAY(column.type)))
    return column.in_(list(values))


def one_of_bound(dialect: str, column: SQLExpr, name: str) -> ColumnElement[bool]:
    """:func:`one_of` for a statement built once: the values are bound at execution
    under ``name`` (a list), as one array on PostgreSQL and an expanding ``IN`` on SQLite."""
    if dialect == "postgresql":
        return column == any_(bindparam(name, type_=ARRAY(column.type)))
    return column.in_(bindparam(name, expanding=True))


def dialect_of(session: AsyncSession) -> str:
    """``postgresql`` or ``sqlite``: the dialect the session's statements go to."""
    return session.get_bind().dialect.name


def upsert_insert(session: AsyncSession) -> Any:
    """The dialect's ``insert`` construct, which has ``on_conflict_do_*`` on both."""
    return upsert_construct(session.get_bind().dialect.name)


def upsert_construct(dialect: str) -> Any:
    """:func:`upsert_insert` by dialect name (for statements built once per dialect)."""
    return pg_insert if dialect == "postgresql" else sqlite_insert


class days_since(FunctionElement[float]):  # noqa: N801 - reads like the SQL function it is
    """Fractional days from a timestamp column to ``now`` (may be negative)."""

    type = Float()
    inherit_cache = True

    def __init__(self, now: ColumnElement[Any], then: SQLExpr) -> None:
        super().__init__(now, then)


@compiles(days_since, "sqlite")
def _days_since_sqlite(element: days_since, compiler: SQLCompiler, **kw: Any) -> str:
    now, then = list(element.clauses)
    # Timestamps are stored as naive UTC text that julianday() parses.
    return f"(julianday({compiler.process(now, **kw)}) - julianday({compiler.process(then, **kw)}))"


@compiles(days_since, "postgresql")
def _days_since_pg(element: days_since, compiler: SQLCompiler, **kw: Any) -> str:
    now, then = list(element.clauses)
    return (
        f"(EXTRACT(EPOCH FROM ({compiler.process(now, **kw)} - {compiler.process(then, **kw)}))"
        " / 86400.0)"
    )


# The job locks held in this process on databases in memory: (engine's id, job).
_HELD_IN_MEMORY: set[tuple[int, str]] = set()


def sqlite_rescore_lock_path(engine: AsyncEngine) -> Path | None:
    """The rescoring lock file beside an SQLite database file (None in memory)."""
    return sqlite_job_lock_path(engine, "rescore")


def sqlite_job_lock_path(engine: AsyncEngine, job: str) -> Path | None:
    """A job's lock file beside an SQLite database file (None in memory)."""
    database = engine.url.database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(f"{database}.{job}.lock")


def rescore_lock(engine: AsyncEngine) -> AbstractAsyncContextManager[bool]:
    """Hold the rescoring lock for a whole run; yields False if another run holds it
    (:func:`job_lock`)."""
    return job_lock(engine, "rescore", RESCORE_LOCK_KEY)


def embed_lock(engine: AsyncEngine) -> AbstractAsyncContextManager[bool]:
    """Hold the embedding backfill's lock for a whole run; yields False if another run,
    in this process or any other on the database, holds it (:func:`job_lock`)."""
    return job_lock(engine, "embed", EMBED_LOCK_KEY)


@asynccontextmanager
async def job_lock(engine: AsyncEngine, job: str, key: int) -> AsyncIterator[bool]:
    """Hold a job's lock for a whole run; yields False if another run holds it.

    PostgreSQL: a session-level advisory lock (``key``) on a dedicated connection, because
    the run commits batch by batch; it is released at the end, or by the server if the
    connection dies. SQLite: an ``flock`` on a file beside the database, which
    every process that opens the database sees (a server, ``jarvis-memory rescore`` from
    cron, the console's button) and the kernel releases if the holder dies. A database in
    memory lives in one process, so a set of the jobs held in it is enough.

    Holding it proves no other run of the job is under way: a run writes and finishes
    its ``job_runs`` row only while holding it (services/job_runs/bookkeeping.py).
    """
    if engine.dialect.name != "postgresql":
        path = sqlite_job_lock_path(engine, job)
        if path is None:
            held = (id(engine), job)
            if held in _HELD_IN_MEMORY:
                yield False
                return
            _HELD_IN_MEMORY.add(held)
            try:
                yield True
            finally:
                _HELD_IN_MEMORY.discard(held)
            return
        with try_file_lock(path) as acquired:
            yield acquired
        return
    async with engine.connect() as conn:
        acquired = bool(
            (
                await conn.execute(text("SELECT pg_try_advisory_lock(:key)"), {"key": key})
            ).scalar_one()
        )
        try:
            yield acquired
        finally:
            if acquired:
                await conn.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": key})
            await conn.commit()
