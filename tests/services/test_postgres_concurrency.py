"""What needs separate PostgreSQL connections: atomic counts and the replica lock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import delete, text
from sqlalchemy.ext.asyncio import AsyncEngine

from models import JobRun, MemoryUser, UserMemory
from services.analysis import TextAnalyzer
from services.db import Database
from services.jobs import run_rescore
from services.memory import MemoryService, NewMemory
from services.recall import RecallService
from services.repositories.dialect import RESCORE_LOCK_KEY
from services.settings import Settings
from tests.conftest import FakeClock

USER = "concurrency-user"


@pytest.fixture
async def real_db(engine: AsyncEngine) -> AsyncIterator[Database]:
    """The real engine (commits are real); the test's rows are deleted afterwards."""
    if engine.dialect.name != "postgresql":
        pytest.skip("needs separate PostgreSQL connections")
    database = Database(engine)
    yield database
    async with database.unit_of_work() as session:
        await session.execute(delete(UserMemory).where(UserMemory.user_id == USER))
        await session.execute(delete(MemoryUser).where(MemoryUser.user_id == USER))
        await session.execute(delete(JobRun))


@pytest.mark.postgres_only
async def test_twenty_concurrent_recalls_lose_no_count(
    real_db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> None:
    async with real_db.unit_of_work() as session:
        stored = await MemoryService(session, settings, analyzer, clock).add(
            USER, NewMemory(content="the spare key is under the blue flowerpot")
        )

    async def recall_once() -> int:
        async with real_db.unit_of_work() as session:
            hits = await RecallService(session, settings, analyzer, clock).recall_memories(
                USER, "spare key", 1
            )
            return len(hits)

    results = await asyncio.gather(*(recall_once() for _ in range(20)))
    assert results == [1] * 20
    async with real_db.unit_of_work() as session:
        memory = await MemoryService(session, settings, analyzer, clock).get(USER, stored.memory.id)
        assert memory.recall_count == 20
        assert memory.frequency_count == 21


@pytest.mark.postgres_only
async def test_second_replica_skips_while_the_lock_is_held(
    real_db: Database, settings: Settings, clock: FakeClock
) -> None:
    async with real_db.engine.connect() as other_replica:
        await other_replica.execute(text("SELECT pg_advisory_lock(:k)"), {"k": RESCORE_LOCK_KEY})
        run = await run_rescore(real_db, settings, clock)
        assert run.status == "skipped"
        await other_replica.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": RESCORE_LOCK_KEY})
        await other_replica.commit()
    run = await run_rescore(real_db, settings, clock)
    assert run.status == "succeeded"


@pytest.mark.postgres_only
async def test_concurrent_identical_adds_merge(
    real_db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> None:
    async def add_once() -> bool:
        async with real_db.unit_of_work() as session:
            stored = await MemoryService(session, settings, analyzer, clock).add(
                USER, NewMemory(content="I parked on level 3, spot 42")
            )
            return stored.merged

    merged = await asyncio.gather(*(add_once() for _ in range(8)))
    assert sorted(merged) == [False] + [True] * 7
    async with real_db.unit_of_work() as session:
        page = await MemoryService(session, settings, analyzer, clock).list_page(USER)
        assert len(page.items) == 1
        assert page.items[0].mention_count == 8


@pytest.mark.postgres_only
async def test_tracked_recalls_and_rescoring_do_not_deadlock(
    real_db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> None:
    words = ["apple", "banana", "cherry", "damson", "elder", "fig"]
    async with real_db.unit_of_work() as session:
        await MemoryService(session, settings, analyzer, clock).add_many(
            USER,
            [
                NewMemory(content=f"{a} and {b} number {i}")
                for i, (a, b) in enumerate((a, b) for a in words for b in words if a != b)
            ],
        )
    small_batches = settings.model_copy(update={"rescore_batch_size": 7})

    async def recall(query: str) -> int:
        async with real_db.unit_of_work() as session:
            hits = await RecallService(session, settings, analyzer, clock).recall_memories(
                USER, query, 10
            )
            return len(hits)

    queries = [f"{a} {b}" for a in words for b in reversed(words)] * 2
    rescores = [asyncio.create_task(run_rescore(real_db, small_batches, clock)) for _ in "ab"]
    found = await asyncio.gather(*(recall(q) for q in queries))
    runs = await asyncio.gather(*rescores)
    assert found == [10] * len(queries)
    # One run may be skipped (the other holds the replica lock); neither fails.
    assert {run.status for run in runs} <= {"succeeded", "skipped"}
