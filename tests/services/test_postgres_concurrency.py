"""What needs separate PostgreSQL connections: atomic counts and the replica lock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from sqlalchemy import delete, text
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from models import JobRun, MemoryUser, UserMemory
from services.analysis import TextAnalyzer
from services.db import Database
from services.jobs import run_rescore
from services.memory import MemoryService, NewMemory
from services.recall import RecallService
from services.repositories.dialect import RESCORE_LOCK_KEY
from services.scoring import ImportanceScorer
from services.settings import Settings
from services.tracked_recall import recall_and_track
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


@pytest.mark.postgres_only
async def test_twenty_concurrent_counts_in_autocommit_lose_nothing(
    real_db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> None:
    # recall_and_track counts in one statement in autocommit (Database.one_statement):
    # the count is atomic and the score is computed from the row the count left.
    # A threshold far above the counts keeps the frequency component from saturating,
    # so a score computed from a stale count would show.
    settings = settings.model_copy(update={"frequency_threshold": 100.0})
    async with real_db.unit_of_work() as session:
        service = MemoryService(session, settings, analyzer, clock)
        for content in ("the spare key is under the blue flowerpot", "the spare tyre is flat"):
            await service.add(USER, NewMemory(content=content))
    clock.advance(days=3)

    def service_for(session: AsyncSession) -> RecallService:
        return RecallService(session, settings, analyzer, clock)

    results = await asyncio.gather(
        *(recall_and_track(real_db, service_for, USER, "spare", 2) for _ in range(20))
    )
    assert [len(hits) for hits in results] == [2] * 20
    async with real_db.unit_of_work() as session:
        page = await MemoryService(session, settings, analyzer, clock).list_page(USER)
    scorer = ImportanceScorer(settings)
    for memory in page.items:
        assert memory.recall_count == 20
        assert memory.frequency_count == 21
        expected = scorer.breakdown(memory, clock.now)
        assert memory.importance_score == pytest.approx(expected.score, abs=1e-6)
        assert memory.frequency_score == pytest.approx(expected.frequency, abs=1e-6)
    # Every count returned the row as it left it: each count value once, and the
    # frequency component of that very count (last activity: now, so no decay).
    returned = [h.memory for hits in results for h in hits]
    assert sorted(m.recall_count for m in returned) == sorted(list(range(1, 21)) * 2)
    for m in returned:
        assert m.frequency_count == m.recall_count + 1
        assert m.frequency_score == pytest.approx(m.frequency_count / 100.0, abs=1e-9)


@pytest.mark.postgres_only
async def test_an_add_waiting_for_its_user_holds_no_memory(
    real_db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> None:
    # Adds of one user take the user's row before any memory's (services/ingest.py), so
    # one add can never hold memories another needs while waiting for the user's row.
    async with real_db.unit_of_work() as session:
        service = MemoryService(session, settings, analyzer, clock)
        for text_ in ("季度报告要在周五前交", "季度报告的数据还没整理", "季度报告让我很焦虑"):
            await service.add(USER, NewMemory(content=text_))

    async def add_linked() -> int:
        async with real_db.unit_of_work() as session:
            stored = await MemoryService(session, settings, analyzer, clock).add(
                USER, NewMemory(content="季度报告终于写完了")
            )
            return stored.memory.associated_count

    async with real_db.engine.connect() as other_writer:
        held = "SELECT 1 FROM memory_users WHERE user_id = :u FOR UPDATE"
        await other_writer.execute(text(held), {"u": USER})
        adding = asyncio.create_task(add_linked())
        await asyncio.sleep(0.5)
        assert not adding.done()  # it waits for the user's row...
        async with real_db.engine.connect() as probe:
            # ...holding none of the memories it will link to and rescore.
            locked = await probe.execute(
                text("SELECT id FROM user_memories WHERE user_id = :u FOR UPDATE NOWAIT"),
                {"u": USER},
            )
            assert len(locked.all()) == 3
            await probe.rollback()
        await other_writer.rollback()
    assert await adding == 3  # linked to all three by their shared topic
