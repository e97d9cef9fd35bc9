"""Fixtures: every database test runs on SQLite and, with TEST_DATABASE_URL, PostgreSQL.

Each run (each xdist worker) migrates one fresh database per backend through the real
Alembic env.py, once, and keeps it to the end (``_Backends``).
Each test gets one connection inside an outer transaction; the service's units of work
become savepoints on it, and everything is rolled back at the end.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from contextlib import AsyncExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi.dependencies import models as fastapi_dependency_models
from hypothesis import Phase
from hypothesis import settings as hypothesis_settings
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker

from api.app import create_app
from models.base import Base
from services.core.db import Database, build_engine
from services.core.settings import Settings
from services.repositories.dialect import driver_sql
from services.repositories.statements import recall_count_sql, scoring_sql
from services.text.analysis import TextAnalyzer
from tests.db_backends import drop_templates, fresh_database, migrate, postgres_server_url
from tests.factories import Services
from tests.providers import ProviderServer
from tests.timing import lifespan

IN_CI = os.environ.get("CI", "").lower() == "true"
BACKENDS = ["sqlite"] + (["postgresql"] if postgres_server_url() else [])

if IN_CI and "postgresql" not in BACKENDS:
    raise pytest.UsageError("CI=true but TEST_DATABASE_URL is not set: PostgreSQL must be tested")


class FakeClock:
    """A clock that only moves when a test moves it."""

    def __init__(self, start: datetime) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        """Move forward by ``timedelta(**delta)``."""
        self.now += timedelta(**delta)


if "MUTANT_UNDER_TEST" in os.environ:
    # Under `make mutation` a failing example is all that counts: shrinking it (dozens
    # of database round trips per step) only ran the mutant into mutmut's timeout.
    hypothesis_settings.register_profile(
        "mutation", phases=[Phase.explicit, Phase.reuse, Phase.generate]
    )
    hypothesis_settings.load_profile("mutation")


@pytest.fixture(scope="session", autouse=True)
def _statements_built_by_this_session() -> None:
    """Under ``make mutation`` (docs/mutation.md) only: forget the prebuilt SQL.

    mutmut forks each mutant's pytest session from a process that already ran the
    tests, so the scoring statements that process built and cached once per settings
    (scoring_sql._BUILT and its kin) would be the unmutated ones, and a mutant of the
    scoring SQL would survive on every path that reads the cache.
    """
    if "MUTANT_UNDER_TEST" not in os.environ:
        return
    scoring_sql._BUILT.clear()
    recall_count_sql._BUILT.clear()
    driver_sql.driver_statement.cache_clear()


# FastAPI remembers whether each dependency callable is a generator or a coroutine in
# module-level LRU caches of 4,096 entries. Every app the tests build adds its own closures
# (about four), and through them keeps the whole app alive: some 7,000 objects each, for
# the next thousand apps. A worker builds over a thousand, so its heap grew past a
# million objects, and a test that starts an app as served (tests/api/test_batch_stall.py,
# the startup freeze's gc.collect()) walked them all: 5-12 s of setup each in a full run.
_FASTAPI_CALLABLE_CACHES = [
    cached
    for name in (
        "_is_gen_callable_cached",
        "_is_async_gen_callable_cached",
        "_is_coroutine_callable_cached",
    )
    if (cached := getattr(fastapi_dependency_models, name, None)) is not None
]


@pytest.fixture(autouse=True)
def _apps_let_go() -> Iterator[None]:
    """After each test, FastAPI forgets the callables of the apps it built."""
    yield
    for cached in _FASTAPI_CALLABLE_CACHES:
        cached.cache_clear()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2026, 1, 1, 9, 0, tzinfo=UTC))


@pytest.fixture
def settings() -> Settings:
    # _env_file=None: a developer's .env must not leak into tests.
    return Settings(
        _env_file=None,
        scheduler_enabled=False,
        database_url="sqlite://",
        # Hundreds of apps start in one test process; tests/api/test_startup_heap_api.py
        # covers the freeze on its own.
        freeze_startup_heap=False,
    )


@pytest.fixture(scope="session")
def analyzer() -> TextAnalyzer:
    built = TextAnalyzer(Settings(_env_file=None))
    built.warm()
    return built


class _Backends:
    """Each backend's migrated database and its engine, made the first time a test asks
    for that backend and kept until the session (the xdist worker's) ends.

    ``database_url`` is a parametrized session fixture, and pytest tears such a fixture
    down whenever the parameter changes: under ``--dist loadfile`` a worker runs a file's
    SQLite tests, then its PostgreSQL ones, then the next file's SQLite ones, so every
    file re-made and re-migrated both databases (some 3 s a file, over 100 files). The
    tests already share one database per backend across files when run without xdist:
    each test's writes are rolled back, and the few that commit delete what they wrote.
    """

    def __init__(self, tmp_path_factory: pytest.TempPathFactory, stack: AsyncExitStack) -> None:
        self._tmp = tmp_path_factory
        self._stack = stack
        self._urls: dict[str, str] = {}
        self._engines: dict[str, AsyncEngine] = {}

    async def url(self, backend: str) -> str:
        if backend not in self._urls:
            tmp: Path = self._tmp.mktemp(backend)
            url = await self._stack.enter_async_context(fresh_database(backend, tmp))
            await migrate(url)
            self._urls[backend] = url
        return self._urls[backend]

    def engine(self, url: str) -> AsyncEngine:
        if url not in self._engines:
            built = build_engine(url)
            self._stack.push_async_callback(built.dispose)  # before its database is dropped
            self._engines[url] = built
        return self._engines[url]


@pytest.fixture(scope="session")
async def _backends(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[_Backends]:
    async with AsyncExitStack() as stack:
        yield _Backends(tmp_path_factory, stack)


@pytest.fixture(scope="session", autouse=True)
async def _templates_dropped() -> AsyncIterator[None]:
    """The databases that tests/db_backends.py's migrated_copy copies go with the session."""
    yield
    await drop_templates()


@pytest.fixture(scope="session", params=BACKENDS)
async def database_url(request: pytest.FixtureRequest, _backends: _Backends) -> str:
    return await _backends.url(request.param)


@pytest.fixture(scope="session")
def engine(database_url: str, _backends: _Backends) -> AsyncEngine:
    return _backends.engine(database_url)


@pytest.fixture
async def db(engine: AsyncEngine) -> AsyncIterator[Database]:
    """A Database whose units of work are savepoints in a rolled-back transaction."""
    await _left_behind_removed(engine)
    async with engine.connect() as connection:
        outer = await connection.begin()
        database = Database(engine)
        database.sessionmaker = async_sessionmaker(
            bind=connection, expire_on_commit=False, join_transaction_mode="create_savepoint"
        )
        try:
            yield database
        finally:
            await outer.rollback()


async def _left_behind_removed(engine: AsyncEngine) -> None:
    """Rows an earlier test committed (past its rolled-back transaction, or without this
    fixture: a live server, the CLI), deleted before the next test starts: the databases
    are shared by every file a worker runs. One query when nothing was left behind."""
    tables = list(reversed(Base.metadata.sorted_tables))
    anything = " OR ".join(f'EXISTS (SELECT 1 FROM "{t.name}")' for t in tables)
    async with engine.begin() as connection:
        if (await connection.execute(text(f"SELECT {anything}"))).scalar():
            for table in tables:  # children before the rows they refer to
                await connection.execute(table.delete())


@pytest.fixture
async def client(
    db: Database, settings: Settings, clock: FakeClock
) -> AsyncIterator[httpx.AsyncClient]:
    """The real app over ASGI, lifespan included, on the test's database."""
    app = create_app(settings, db=db, clock=clock)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http,
    ):
        yield http


@pytest.fixture
def services(
    db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> Services:
    return Services(db, settings, analyzer, clock)


@pytest.fixture(scope="session")
def provider_server() -> Iterator[ProviderServer]:
    server = ProviderServer().start()
    yield server
    server.stop()


@pytest.fixture
def provider(provider_server: ProviderServer) -> Iterator[ProviderServer]:
    """The loopback embeddings + rerank server, answering normally and with no history;
    afterwards any answer it still holds (``slow``) is let go."""
    provider_server.mode = "ok"
    provider_server.fail_after = None
    provider_server.refuse = None
    provider_server.hold = None
    provider_server.held = 0
    provider_server.requests.clear()
    yield provider_server
    provider_server.release()
