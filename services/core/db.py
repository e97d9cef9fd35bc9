"""Engine and session factory, and the one way to open a unit of work."""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import Session, SessionTransaction

from services.core.settings import PlanCacheMode, Settings

log = logging.getLogger(__name__)

# The execution option that marks a reader's connection (see Database.reader).
_READER = "jarvis_reader"
# The session.info key of the callbacks to run once its transaction commits.
_AFTER_COMMIT = "jarvis_after_commit"


def after_commit(session: AsyncSession, callback: Callable[[], None]) -> None:
    """Call ``callback`` once the unit of work that ``session`` is in has committed, and
    not at all if it rolls back: telling another component about a write (the embedding
    backfill, services/embeddings/nudges.py) before it is committed sends it to read
    rows it cannot see yet. The same callback registered twice in one transaction runs
    once. It runs inside the commit, on the event loop: it must only note or schedule
    work, never wait; one that raises is logged and the commit stands.
    """
    pending: list[Callable[[], None]] = session.sync_session.info.setdefault(_AFTER_COMMIT, [])
    if callback not in pending:
        pending.append(callback)


@event.listens_for(Session, "after_commit")
def _run_after_commit(session: Session) -> None:
    for callback in session.info.pop(_AFTER_COMMIT, []):
        try:
            callback()
        except Exception:
            log.exception("an after-commit callback failed")


@event.listens_for(Session, "after_soft_rollback")
def _drop_after_rollback(session: Session, previous_transaction: SessionTransaction) -> None:
    if previous_transaction.parent is None:  # the whole unit of work, not a savepoint
        session.info.pop(_AFTER_COMMIT, None)


def _configure_sqlite(engine: AsyncEngine, lock_timeout_ms: int) -> None:
    sync_engine = engine.sync_engine

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Take transaction control away from pysqlite so our BEGIN below is the only one.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # Cascading deletes of postings, topics and links depend on this.
        cursor.execute("PRAGMA foreign_keys=ON")
        # A deleted row's bytes are overwritten with zeros, not left in a free page of the
        # file until reused: forgetting a memory or erasing a person leaves no copy of
        # the text in the database file (docs/api.md "Forgetting").
        cursor.execute("PRAGMA secure_delete=ON")
        # WAL lets readers proceed while the scheduler writes.
        cursor.execute("PRAGMA journal_mode=WAL")
        # Wait for a competing writer instead of failing at once with "database is locked".
        cursor.execute(f"PRAGMA busy_timeout={int(lock_timeout_ms)}")
        # Safe with WAL; full fsync on every commit buys nothing for this workload.
        cursor.execute("PRAGMA synchronous=NORMAL")
        # Scoring SQL uses exp (decay) and ln (BM25's idf): SQLite's math functions, or
        # Python's where the build has none.
        for name, function in (("exp", math.exp), ("ln", math.log)):
            try:
                cursor.execute(f"SELECT {name}(1)")
            except Exception:  # pragma: no cover - only on SQLite builds without them
                dbapi_connection.create_function(name, 1, function, deterministic=True)
        cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(conn: Any) -> None:
        # IMMEDIATE takes the write lock up front: a deferred transaction that reads and
        # then writes can fail with SQLITE_BUSY without ever waiting on busy_timeout.
        # A reader's unit of work (Database.reader) never writes, so it takes no lock:
        # with WAL it reads a snapshot beside the one writer instead of queueing for it.
        reader = conn.get_execution_options().get(_READER, False)
        conn.exec_driver_sql("BEGIN" if reader else "BEGIN IMMEDIATE")


def quiet_driver_logs() -> None:
    """Keep the SQLite driver's DEBUG lines, which hold parameters and rows, unlogged."""
    driver = logging.getLogger("aiosqlite")
    if driver.level < logging.INFO:  # NOTSET too: a DEBUG root would reach it
        driver.setLevel(logging.INFO)


def build_engine(
    url: str,
    *,
    echo: bool = False,
    pool_size: int = 10,
    plan_cache_mode: PlanCacheMode = "force_generic_plan",
    lock_timeout_ms: int = 30_000,
) -> AsyncEngine:
    """An async engine for ``url`` with the per-dialect settings this service relies on.

    A statement waits at most ``lock_timeout_ms`` for a lock another transaction holds:
    SQLite's ``busy_timeout``, PostgreSQL's ``lock_timeout`` (by default PostgreSQL waits
    for ever, so one stuck session, say an operator's open psql transaction, would hold
    every write of that user until it ended). A wait that times out raises an error that
    ``is_contention`` recognises, and the API answers 503 ``database_busy``.

    On PostgreSQL (asyncpg) every connection gets ``plan_cache_mode``, by default
    ``force_generic_plan``. asyncpg prepares every statement, and under PostgreSQL's
    ``auto`` it kept re-planning recall's BM25 statement at every execution: the generic
    plan's estimate, made without the bound arrays and limits, looked dearer than the
    custom plans, though the plan is the same. Planning that statement costs about 1 ms,
    as much as running it for a typical query; at 10k memories per user a recall took
    10.0-12.1 → 8.1-9.0 ms (p50). The service's statements read through indexes
    that lead with user_id, or the primary key, so one plan serves every user.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        # aiosqlite's DEBUG lines print every statement's parameters and results, that
        # is what people said: they are never logged, whatever the root level.
        quiet_driver_logs()
        engine = create_async_engine(url, echo=echo, hide_parameters=True)
        _configure_sqlite(engine, lock_timeout_ms)
        return engine
    asyncpg = parsed.get_driver_name() == "asyncpg"
    engine = create_async_engine(
        url,
        echo=echo,
        # Statements may be logged (DB_ECHO, a DEBUG root logger), their values never:
        # they are memories' text. Errors show the statement without them too.
        hide_parameters=True,
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=not asyncpg,
        connect_args=(
            {
                "server_settings": {
                    "plan_cache_mode": plan_cache_mode,
                    "lock_timeout": str(int(lock_timeout_ms)),
                }
            }
            if asyncpg
            else {}
        ),
    )
    if asyncpg:
        _check_on_checkout(engine)
    return engine


def _check_on_checkout(engine: AsyncEngine) -> None:
    """Replace ``pool_pre_ping`` by asyncpg's own knowledge of a closed connection.

    SQLAlchemy's ping on asyncpg is three round trips at every checkout (BEGIN, an empty
    query, ROLLBACK: the transaction is there for pgbouncer's transaction mode), and a
    tracked recall checks out twice. A reader running ``SELECT 1`` took 0.85 ms with the
    ping and 0.44 ms without, 0.64 → 0.37 ms of this process's CPU (PostgreSQL's work
    for the three statements comes on top; /tmp/scratch/ping_ab.py). Under the
    bench's HTTP mix at tenant-10k the server answered 84 → 94 requests a second (p50
    of four 15 s windows each, alternating).

    What the ping is for, a connection the server has closed (a restart,
    ``pg_terminate_backend``, an idle timeout), asyncpg knows without asking: the
    server's goodbye reaches the connection's socket while it sits in the pool, and the
    event loop marks it closed. Such a connection is discarded here and the checkout
    retried with a new one. What neither catches is a server that vanishes without a
    word (a network partition): the ping would have waited as long as the query will.
    """

    @event.listens_for(engine.sync_engine, "checkout")
    def _discard_closed(dbapi_connection: Any, _record: Any, _proxy: Any) -> None:
        if dbapi_connection.driver_connection.is_closed():
            raise DisconnectionError("the server closed this pooled connection")


class Database:
    """The engine and its session factory; built once per process by an edge."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine
        self.sessionmaker = async_sessionmaker(engine, expire_on_commit=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> Database:
        """Build the engine that ``settings.database_url`` names."""
        return cls(
            build_engine(
                settings.database_url,
                echo=settings.db_echo,
                pool_size=settings.db_pool_size,
                plan_cache_mode=settings.db_plan_cache_mode,
                lock_timeout_ms=settings.db_lock_timeout_ms,
            )
        )

    @property
    def dialect(self) -> str:
        """``sqlite`` or ``postgresql``."""
        return self.engine.dialect.name

    @asynccontextmanager
    async def unit_of_work(self) -> AsyncIterator[AsyncSession]:
        """begin → yield a session → commit, or roll back on any error."""
        async with self.sessionmaker() as session, session.begin():
            yield session

    @asynccontextmanager
    async def reader(self) -> AsyncIterator[AsyncSession]:
        """A unit of work that only reads.

        On SQLite every other unit of work begins IMMEDIATE and so queues for the single
        write lock, however briefly it writes; a reader begins DEFERRED and reads its WAL
        snapshot while a writer works (under a 64-client load every recall
        queued behind every add). Writing in a reader is a bug: SQLite would refuse the
        upgrade with SQLITE_BUSY the moment another writer committed first.

        On PostgreSQL a reader runs in autocommit: no BEGIN and no COMMIT, each a round
        trip to the server (about 0.4 ms each on loopback, as much as one of recall's
        four queries). At READ COMMITTED, the transaction it replaces gave each statement
        a snapshot of its own anyway, so what the reads see does not change. (A Database
        bound to one connection, as the tests' rolled-back one, reads in its transaction.)
        """
        async with self.sessionmaker() as session, session.begin():
            options: dict[str, Any] = {_READER: True, **self._autocommit(session)}
            # The options reach the connection before its BEGIN (or instead of it).
            await session.connection(execution_options=options)
            yield session

    @asynccontextmanager
    async def snapshot(self) -> AsyncIterator[AsyncSession]:
        """A unit of work that only reads, and reads one state of the database in all
        its statements: what a reader that runs many queries must see as a whole (an
        export of a person, whose links must name memories the same export holds).

        SQLite: a reader's deferred BEGIN already reads one WAL snapshot until its end.
        PostgreSQL: REPEATABLE READ, instead of a reader's autocommit, where each
        statement would see the commits made since the one before.
        """
        async with self.sessionmaker() as session, session.begin():
            options: dict[str, Any] = {_READER: True}
            if self.dialect == "postgresql" and isinstance(session.bind, AsyncEngine):
                options["isolation_level"] = "REPEATABLE READ"
            await session.connection(execution_options=options)
            yield session

    @asynccontextmanager
    async def one_statement(self) -> AsyncIterator[AsyncSession]:
        """A unit of work whose writes are a single statement (a tracked recall's count).

        On PostgreSQL it runs in autocommit: a statement is atomic by itself, and BEGIN
        and COMMIT are a round trip each. Elsewhere, or on a Database bound
        to one connection (the tests' rolled-back one), an ordinary unit of work: on
        SQLite the write still needs BEGIN IMMEDIATE's lock.
        """
        async with self.sessionmaker() as session, session.begin():
            if options := self._autocommit(session):
                await session.connection(execution_options=options)
            yield session

    def _autocommit(self, session: AsyncSession) -> dict[str, Any]:
        """The execution options of autocommit on PostgreSQL, unless the session is bound
        to one connection (the tests' rolled-back one); none elsewhere."""
        if self.dialect == "postgresql" and isinstance(session.bind, AsyncEngine):
            return {"isolation_level": "AUTOCOMMIT"}
        return {}

    async def dispose(self) -> None:
        """Close every pooled connection."""
        await self.engine.dispose()


# PostgreSQL's SQLSTATEs of a transaction that lost to another, not of a wrong request:
# deadlock_detected, serialization_failure, lock_not_available (lock_timeout, NOWAIT).
_CONTENTION_SQLSTATES = frozenset({"40P01", "40001", "55P03"})
# SQLite's result codes (and their extended forms, SQLITE_BUSY_SNAPSHOT …): the lock
# stayed taken past busy_timeout, or a table lock within one process.
_CONTENTION_SQLITE = ("SQLITE_BUSY", "SQLITE_LOCKED")


def is_contention(exc: BaseException) -> bool:
    """True when ``exc`` says another transaction was in the way (a lock held past the
    lock timeout, a deadlock, a serialization conflict): retrying may succeed, and the
    failed transaction wrote nothing. False for any other error (a bug, a lost server)."""
    if not isinstance(exc, DBAPIError):
        return False
    original = exc.orig
    if getattr(original, "sqlstate", None) in _CONTENTION_SQLSTATES:
        return True
    name = getattr(original, "sqlite_errorname", None)
    return isinstance(name, str) and name.startswith(_CONTENTION_SQLITE)
