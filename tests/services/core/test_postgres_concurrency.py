"""What needs separate PostgreSQL connections: atomic counts, lock order, the replica lock."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine
from typing import Any

import pytest
from sqlalchemy import delete, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from models import JobRun, UserMemory
from services.core.db import Database
from services.core.settings import Settings
from services.recall.recall_service import RecallService
from services.recall.tracked import recall_and_track
from services.remembering.memory_service import MemoryChanges, MemoryService, NewMemory
from services.repositories.dialect.seam import RESCORE_LOCK_KEY
from services.repositories.memories import MemoryRepository
from services.scoring.jobs import run_rescore
from services.scoring.scorer import ImportanceScorer
from services.text.analysis import TextAnalyzer
from tests.conftest import FakeClock
from tests.factories import delete_users
from tests.services.core.pg_waits import backend_pid, blocked_by

USER = "concurrency-user"


@pytest.fixture
async def real_db(engine: AsyncEngine) -> AsyncIterator[Database]:
    """The real engine (commits are real); the test's rows are deleted afterwards."""
    if engine.dialect.name != "postgresql":
        pytest.skip("needs separate PostgreSQL connections")
    database = Database(engine)
    yield database
    async with database.unit_of_work() as session:
        await delete_users(session, USER)
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
            # Floor 0: every query fills its ten (most memories hold one of the two words,
            # below 0.7), so each tracked recall reads as many rows as it did before.
            hits = await RecallService(session, settings, analyzer, clock).recall_memories(
                USER, query, 10, min_confidence=0.0
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
    # Every hit counts (what counts has a confidence floor): this is about the counting.
    settings = settings.model_copy(
        update={"frequency_threshold": 100.0, "recall_count_min_confidence": 0.0}
    )
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
    # Adds of one user take the user's row before any memory's (services/remembering/ingest.py), so
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
        # It waits for the user's row (the server says so)...
        await blocked_by(real_db.engine, await backend_pid(other_writer), adding)
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


async def _stored(
    db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock, *texts: str
) -> list[int]:
    async with db.unit_of_work() as session:
        service = MemoryService(session, settings, analyzer, clock)
        return [(await service.add(USER, NewMemory(content=t))).memory.id for t in texts]


async def _waits_holding_none_of(
    db: Database, held: int, others: list[int], write: Coroutine[Any, Any, None]
) -> asyncio.Task[None]:
    """Start ``write`` while another transaction holds memory ``held``; once it waits for
    it, none of ``others`` may be locked. Returns the write, to await after release."""
    async with db.engine.connect() as other_writer:
        hold = "SELECT 1 FROM user_memories WHERE id = :id FOR UPDATE"
        await other_writer.execute(text(hold), {"id": held})
        writing = asyncio.create_task(write)
        # It waits for the held memory (the server says so)...
        await blocked_by(db.engine, await backend_pid(other_writer), writing)
        async with db.engine.connect() as probe:
            # ...holding none of the later ones it will write (FOR UPDATE NOWAIT would
            # fail on a locked row: "could not obtain lock on row").
            locked = await probe.execute(
                text("SELECT id FROM user_memories WHERE id = ANY(:ids) FOR UPDATE NOWAIT"),
                {"ids": others},
            )
            assert sorted(locked.scalars()) == sorted(others)
            await probe.rollback()
        await other_writer.rollback()
    return writing


@pytest.mark.postgres_only
async def test_an_add_locks_what_it_writes_in_id_order(
    real_db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> None:
    # The add supersedes the oldest memory (same slot) and links to the two others (same
    # topic). It used to lock the linked ones first (the link recount) and the oldest
    # last (the fact corrector): a tracked count of all three, locking in id order, held
    # the oldest and waited for a linked one, and the two deadlocked (bench.hammer).
    beijing, *reports = await _stored(
        real_db,
        settings,
        analyzer,
        clock,
        "我住在北京",
        "季度报告要在周五前交",
        "季度报告的数据还没整理",
    )

    async def add() -> None:
        async with real_db.unit_of_work() as session:
            await MemoryService(session, settings, analyzer, clock).add(
                USER, NewMemory(content="我搬到上海了，季度报告也写完了")
            )

    adding = await _waits_holding_none_of(real_db, beijing, reports, add())
    await adding
    async with real_db.unit_of_work() as session:
        service = MemoryService(session, settings, analyzer, clock)
        old = await service.get(USER, beijing)
        assert old.superseded_by_id is not None
        assert (await service.get(USER, old.superseded_by_id)).associated_count == 2


@pytest.mark.postgres_only
@pytest.mark.parametrize("operation", ["delete", "edit"])
async def test_deletes_and_edits_lock_in_id_order(
    real_db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    operation: str,
) -> None:
    # Both recount the links of the memory's older neighbour after writing the memory
    # itself; now both lock the neighbour (the lower id) first.
    neighbour, memory = await _stored(
        real_db, settings, analyzer, clock, "季度报告要在周五前交", "季度报告的数据还没整理"
    )

    async def write() -> None:
        async with real_db.unit_of_work() as session:
            service = MemoryService(session, settings, analyzer, clock)
            if operation == "delete":
                await service.delete(USER, memory)
            else:
                await service.update(USER, memory, MemoryChanges(content="季度报告改到下周交"))

    writing = await _waits_holding_none_of(real_db, neighbour, [memory], write())
    await writing
    async with real_db.unit_of_work() as session:
        kept = await MemoryService(session, settings, analyzer, clock).get(USER, neighbour)
        assert kept.associated_count == (0 if operation == "delete" else 1)


@pytest.mark.postgres_only
async def test_the_user_lock_creates_the_row_and_holds_it_without_changing_it(
    real_db: Database, clock: FakeClock
) -> None:
    async with real_db.unit_of_work() as session:
        await MemoryRepository(session).lock_user(USER, clock.now)  # a new user: created
    created = clock.now
    clock.advance(days=1)
    async with real_db.unit_of_work() as session:
        await MemoryRepository(session).lock_user(USER, clock.now)
        async with real_db.engine.connect() as probe:
            with pytest.raises(DBAPIError, match="could not obtain lock"):
                await probe.execute(
                    text("SELECT 1 FROM memory_users WHERE user_id = :u FOR UPDATE NOWAIT"),
                    {"u": USER},
                )
            await probe.rollback()
    async with real_db.unit_of_work() as session:
        row = await MemoryRepository(session).user_stats(USER)
    assert row is not None
    assert (row.memory_count, row.total_doc_length) == (0, 0)
    assert row.updated_at == created  # a lock is not a change


@pytest.mark.postgres_only
@pytest.mark.parametrize("locker", ["lock_memories", "lock_in_id_order"])
async def test_memories_locked_for_a_write_can_still_be_referenced(
    real_db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock, locker: str
) -> None:
    # A foreign-key check takes KEY SHARE on the referenced memory: a vector, link or
    # score-history row inserted elsewhere must not wait for a writer's ordering lock.
    (memory,) = await _stored(real_db, settings, analyzer, clock, "the spare key is in the shed")
    async with real_db.unit_of_work() as session:
        repository = MemoryRepository(session)
        if locker == "lock_memories":
            await repository.lock_memories(USER, [memory])
        else:
            await repository.lock_in_id_order(UserMemory.id == memory)
        async with real_db.engine.connect() as probe:
            row = "SELECT id FROM user_memories WHERE id = :id FOR {} NOWAIT"
            referenced = await probe.execute(text(row.format("KEY SHARE")), {"id": memory})
            assert referenced.scalars().all() == [memory]
            with pytest.raises(DBAPIError, match="could not obtain lock"):
                await probe.execute(text(row.format("NO KEY UPDATE")), {"id": memory})
            await probe.rollback()
