"""Counting a recall's hits: one statement on PostgreSQL (recall_count_sql), the same
rows, scores and history as the statements one by one; on both databases through
``track_hits`` and ``recall_and_track``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

from models import MemoryScoreHistory, UserMemory
from services.core.settings import Settings
from services.recall.recall_service import RecallService
from services.recall.tracked import recall_and_track
from services.remembering.memory_service import MemoryService
from services.repositories.memories import MemoryRepository
from services.repositories.statements.recall_count_sql import COUNTED_COLUMNS
from services.scoring.scorer import ImportanceScorer
from tests.conftest import FakeClock
from tests.factories import Services

SCORE_COLUMNS = COUNTED_COLUMNS  # what a count writes
HISTORY_COLUMNS = (
    "scored_at",
    "reason",
    "importance_score",
    "importance_level",
    "frequency_score",
    "recency_score",
    "emotion_score",
    "impact_score",
)


async def _state(services: Services, user: str) -> tuple[list[tuple[Any, ...]], list[Any]]:
    """A user's memories' score columns and history rows, in content order."""
    async with services.db.unit_of_work() as session:
        memories = (
            await session.scalars(
                select(UserMemory).where(UserMemory.user_id == user).order_by(UserMemory.content)
            )
        ).all()
        order = {m.id: i for i, m in enumerate(memories)}
        history = (
            await session.scalars(
                select(MemoryScoreHistory).where(MemoryScoreHistory.user_id == user)
            )
        ).all()
    rows = [tuple(getattr(m, c) for c in SCORE_COLUMNS) for m in memories]
    trail = sorted((order[h.memory_id], *(getattr(h, c) for c in HISTORY_COLUMNS)) for h in history)
    return rows, trail


async def _same_memories(services: Services, clock: FakeClock, user: str) -> list[UserMemory]:
    """Memories whose recall moves their scores in every way the statement handles."""
    said = [
        ("项目进度需要每周汇报", clock.now - timedelta(days=90)),
        ("Deadline is urgent, I'm worried and anxious", clock.now - timedelta(days=2)),
        ("Bought milk", clock.now - timedelta(days=400)),
    ]
    memories = [await services.add(user, text, created_at=at) for text, at in said]
    await services.add(user, "Bought milk")  # a mention: last_mentioned_at is set
    return memories


async def test_one_statement_writes_what_the_statements_one_by_one_write(
    services: Services, clock: FakeClock
) -> None:
    if services.db.dialect != "postgresql":
        pytest.skip("a data-modifying CTE: SQLite counts statement by statement")
    one, steps = "one-statement", "step-by-step"
    for user in (one, steps):
        await _same_memories(services, clock, user)
    # Low thresholds so that recalls cross levels: escalations are written and cleared.
    settings = services.settings.model_copy(update={"level_high": 0.45, "level_medium": 0.3})
    for _ in range(4):
        clock.advance(days=3)
        for user in (one, steps):
            async with services.db.unit_of_work() as session:
                memories = MemoryRepository(session)
                mine = select(UserMemory.id).where(UserMemory.user_id == user)
                ids = list((await session.scalars(mine)).all())
                if user == one:
                    counted = await memories.count_recalls(settings, user, ids, clock.now)
                    assert counted is not None  # PostgreSQL returns what it wrote
                    assert sorted(counted) == sorted(ids)
                else:
                    await memories.record_recalls(user, ids, clock.now)
                    await memories.rescore(settings, clock.now, user, ids, "recall")

    assert await _state(services, one) == await _state(services, steps)
    rows, trail = await _state(services, one)
    columns = {name: i for i, name in enumerate(SCORE_COLUMNS)}
    assert {r[columns["recall_count"]] for r in rows} == {4}  # four recalls each
    assert any(r[columns["escalated_at"]] is not None for r in rows)  # someone escalated
    assert sum(1 for t in trail if t[2] == "recall") >= 3


async def test_tracked_hits_carry_their_rows_as_the_count_left_them(
    services: Services, clock: FakeClock
) -> None:
    stored = await services.add("u", "项目进度需要每周汇报")
    await services.add("other", "项目进度需要每周汇报")
    clock.advance(days=5)

    def service_for(session: Any) -> RecallService:
        return RecallService(session, services.settings, services.analyzer, clock)

    hits = await recall_and_track(services.db, service_for, "u", "项目进度", 5)

    assert [h.memory.id for h in hits] == [stored.id]
    returned = hits[0].memory
    again = await services.get("u", stored.id)
    for column in SCORE_COLUMNS:
        assert getattr(returned, column) == getattr(again, column), column
    assert again.recall_count == 1
    assert again.last_recalled_at == clock.now
    expected = ImportanceScorer(services.settings).breakdown(again, clock.now)
    assert again.importance_score == pytest.approx(expected.score, abs=1e-6)
    assert again.frequency_score == pytest.approx(expected.frequency, abs=1e-6)
    # Only this user's memory was counted.
    others = await services.recall("other", "项目进度", track=False)
    assert [h.memory.recall_count for h in others] == [0]


async def test_a_hit_deleted_before_its_count_is_left_out(
    services: Services, clock: FakeClock, settings: Settings
) -> None:
    kept = await services.add("u", "项目进度需要每周汇报")
    gone = await services.add("u", "项目进度每周五汇报一次")
    hits = await services.recall("u", "项目进度", track=False)
    assert {h.memory.id for h in hits} == {kept.id, gone.id}
    async with services.db.unit_of_work() as session:
        await MemoryService(session, settings, services.analyzer, clock).delete("u", gone.id)

    async with services.db.one_statement() as session:
        counted = await RecallService(session, settings, services.analyzer, clock).track_hits(
            "u", hits
        )

    assert [h.memory.id for h in counted] == [kept.id]
    assert counted[0].memory.recall_count == 1
    assert (await services.get("u", kept.id)).recall_count == 1
