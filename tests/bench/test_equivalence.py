"""The bulk loader writes exactly the rows MemoryService.add_many writes for the same plan."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from bench.db import fresh_database
from bench.load import load_tenant
from bench.plan import METADATA, SOURCE, Plan, plan_tenant
from bench.replay import replay
from models import (
    MemoryAssociation,
    MemoryScoreHistory,
    MemoryTerm,
    MemoryTermStat,
    MemoryTopic,
    MemoryUser,
    UserMemory,
)
from services.core.db import Database, build_engine
from services.core.settings import Settings
from services.remembering.memory_service import MemoryService, NewMemory
from services.text.analysis import TextAnalyzer
from tests.db_backends import postgres_server_url

NOW = datetime(2026, 1, 1, 9, 0, tzinfo=UTC)
BACKENDS = ["sqlite"] + (["postgresql"] if postgres_server_url() else [])
MEMORIES = 60
USER = "tenant-1"


@pytest.fixture(scope="module")
def bench_settings() -> Settings:
    # A low link cap so that 60 memories already saturate it and the impact component.
    return Settings(
        _env_file=None, scheduler_enabled=False, database_url="sqlite://", topic_links_per_memory=8
    )


@pytest.fixture(scope="module")
def plan(analyzer: TextAnalyzer, bench_settings: Settings) -> Plan:
    return plan_tenant(12, MEMORIES, analyzer, bench_settings, NOW)  # 6 repeats


@pytest.fixture(params=BACKENDS)
async def two_databases(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[tuple[Database, Database]]:
    server = postgres_server_url()
    async with (
        fresh_database(request.param, tmp_path, server) as first,
        fresh_database(request.param, tmp_path, server) as second,
    ):
        dbs = Database(build_engine(first)), Database(build_engine(second))
        try:
            yield dbs
        finally:
            for db in dbs:
                await db.dispose()


def _plain(value: Any) -> Any:
    return repr(value) if isinstance(value, dict | list) else value


def _sort_key(row: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(round(v, 6) if isinstance(v, float) else (v is None, str(v)) for v in row)


def _same(first: tuple[Any, ...], second: tuple[Any, ...]) -> bool:
    """Equal, floats within 1e-9 (SQL and Python may differ in the last bits)."""
    return len(first) == len(second) and all(
        math.isclose(a, b, abs_tol=1e-9) if isinstance(a, float) else a == b
        for a, b in zip(first, second, strict=True)
    )


async def _rows(db: Database, model: Any, skip: tuple[str, ...] = ()) -> list[tuple[Any, ...]]:
    columns = [c for c in model.__table__.columns if c.name not in skip]
    async with db.engine.connect() as conn:
        result = await conn.execute(select(*columns))
        return sorted((tuple(_plain(v) for v in row) for row in result), key=_sort_key)


async def test_bulk_load_equals_the_service(
    two_databases: tuple[Database, Database],
    plan: Plan,
    analyzer: TextAnalyzer,
    bench_settings: Settings,
) -> None:
    through_service, bulk = two_databases
    items = [
        NewMemory(s.content, s.memory_type, SOURCE, dict(METADATA), created_at=s.created_at)
        for s in plan.statements
    ]
    async with through_service.unit_of_work() as session:
        service = MemoryService(session, bench_settings, analyzer, lambda: NOW)
        stored = await service.add_many(USER, items)
    assert [s.merged for s in stored] == [not c for c in plan.creates]
    assert any(s.merged for s in stored)
    loaded = await load_tenant(bulk, bench_settings, USER, plan, NOW)
    assert loaded.memories == MEMORIES
    for model, skip in [
        (UserMemory, ()),
        (MemoryTerm, ()),
        (MemoryTermStat, ()),
        (MemoryTopic, ()),
        (MemoryAssociation, ()),
        # The service starts the write counter at random (write_sql.lock_user), bulk at 1.
        (MemoryUser, ("write_version",)),
        (MemoryScoreHistory, ("id",)),
    ]:
        expected = await _rows(through_service, model, skip)
        actual = await _rows(bulk, model, skip)
        assert len(actual) == len(expected), model.__tablename__
        different = [(a, e) for a, e in zip(actual, expected, strict=True) if not _same(a, e)]
        assert different == [], model.__tablename__
    # The cases that matter were exercised: the link cap, saturated impact, merges.
    links = Counter(link.newer for link in replay(plan, bench_settings, NOW).links)
    assert max(links.values()) == bench_settings.topic_links_per_memory
    assert loaded.rows["memory_score_history"] == MEMORIES  # each scored once
    # ...and fact correction: the plan restates a 「我的…编号是…」 slot with a new value.
    async with through_service.engine.connect() as conn:
        superseded = await conn.scalar(
            select(func.count()).where(UserMemory.superseded_by_id.is_not(None))
        )
    assert superseded
