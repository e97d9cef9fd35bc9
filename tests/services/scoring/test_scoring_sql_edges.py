"""The scoring SQL exactly at its edges: the score clamps, the level thresholds and the
history rule, with settings whose numbers are exact in binary floating point.

Weights of 0.25 and a memory created now (every decay exp(0) = 1) make a score of exactly
0.375 or 0.75, so thresholds set to those numbers tell ``>=`` from ``>``; with the
defaults (0.7, 0.4) no stored score ever lands on a threshold. `make mutation` found
these unchecked.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select

from models import MemoryScoreHistory, UserMemory
from services.core.settings import Settings
from services.repositories.memories import MemoryRepository
from services.scoring.jobs import run_rescore
from services.scoring.scorer import ImportanceScorer
from tests.conftest import FakeClock
from tests.factories import Services

EXACT = {
    "weight_frequency": 0.25,
    "weight_recency": 0.25,
    "weight_emotion": 0.25,
    "weight_impact": 0.25,
    "level_medium": 0.375,
    "level_high": 0.75,
    "score_history_min_delta": 0.0625,
}


def _memory(user: str, name: str, now: datetime, **fields: object) -> UserMemory:
    values: dict[str, object] = {
        "created_at": now,
        "frequency_count": 0,
        "emotion_score": 0.0,
        "associated_count": 0,
        **fields,
    }
    return UserMemory(
        user_id=user, content=name, content_hash=f"{user}-{name}", updated_at=now, **values
    )


async def _rescored(
    services: Services, settings: Settings, rows: list[UserMemory]
) -> dict[str, UserMemory]:
    """Insert ``rows`` (one user), run the scheduled job on them; the rows by content."""
    user = rows[0].user_id
    async with services.db.unit_of_work() as session:
        session.add_all(rows)
    run = await run_rescore(services.db, settings, services.clock, user_id=user)
    assert (run.status, run.rows) == ("succeeded", len(rows))
    async with services.db.unit_of_work() as session:
        found = await session.scalars(select(UserMemory).where(UserMemory.user_id == user))
        return {m.content: m for m in found}


async def test_a_weighted_sum_outside_0_1_is_clamped_as_the_scorer_does(
    services: Services, clock: FakeClock
) -> None:
    # Weights are not checked to add up to 1: 1.0 for frequency makes 1.65 possible,
    # -1.0 for impact makes a negative sum possible.
    over = services.settings.model_copy(update={"weight_frequency": 1.0})
    full = _memory("over", "full", clock(), frequency_count=3, emotion_score=1.0)
    [stored] = (await _rescored(services, over, [full])).values()
    assert stored.importance_score == 1.0
    assert stored.importance_level == "high"
    under = services.settings.model_copy(update={"weight_impact": -1.0})
    linked = _memory("under", "linked", clock() - timedelta(days=400), associated_count=9)
    [stored] = (await _rescored(services, under, [linked])).values()
    assert stored.importance_score == 0.0
    assert ImportanceScorer(under).breakdown(stored, clock()).score == 0.0


async def test_a_score_exactly_at_a_threshold_takes_the_level_above(
    services: Services, clock: FakeClock
) -> None:
    settings = services.settings.model_copy(update=EXACT)
    rows = [
        _memory("levels", "medium", clock(), emotion_score=0.5),  # 0.25 + 0.125
        _memory("levels", "high", clock(), frequency_count=3, emotion_score=1.0),  # 3 x 0.25
    ]
    stored = await _rescored(services, settings, rows)
    assert (stored["medium"].importance_score, stored["medium"].importance_level) == (
        0.375,
        "medium",
    )
    assert (stored["high"].importance_score, stored["high"].importance_level) == (0.75, "high")
    scorer = ImportanceScorer(settings)
    assert [scorer.breakdown(m, clock()).level for m in (stored["medium"], stored["high"])] == [
        "medium",
        "high",
    ]


async def test_a_history_row_is_written_exactly_when_the_score_moved(
    services: Services, clock: FakeClock
) -> None:
    settings = services.settings.model_copy(update=EXACT)
    now, old = clock(), clock() - timedelta(days=1)
    scored = {"emotion_score": 0.5, "scored_at": old}  # each scores 0.375, "medium", now
    rows = [
        # Never scored: a row even though its score (about 0) barely differs from 0.
        _memory("history", "never scored", now - timedelta(days=400)),
        # Moved by exactly the minimum delta (0.375 - 0.3125 = 0.0625), same level.
        _memory(
            "history", "moved", now, importance_score=0.3125, importance_level="medium", **scored
        ),
        # Moved by less than the delta, but to another level.
        _memory(
            "history", "relevelled", now, importance_score=0.40625, importance_level="low", **scored
        ),
        # Did not move.
        _memory(
            "history", "still", now, importance_score=0.375, importance_level="medium", **scored
        ),
    ]
    stored = await _rescored(services, settings, rows)
    async with services.db.unit_of_work() as session:
        counts = await session.execute(
            select(MemoryScoreHistory.memory_id, func.count())
            .where(MemoryScoreHistory.user_id == "history")
            .group_by(MemoryScoreHistory.memory_id)
        )
        written = {int(memory_id): int(n) for memory_id, n in counts}
    by_id = {m.id: name for name, m in stored.items()}
    assert sorted(by_id[i] for i in written) == ["moved", "never scored", "relevelled"]
    assert set(written.values()) == {1}
    async with services.db.unit_of_work() as session:
        # Compared in SQL, as the database stores them: the same instant in the same form
        # (on SQLite a time is text, and text in two forms would sort wrongly).
        same = await session.scalars(
            select(MemoryScoreHistory.reason).where(
                MemoryScoreHistory.memory_id == UserMemory.id,
                MemoryScoreHistory.scored_at == UserMemory.scored_at,
                UserMemory.user_id == "history",
            )
        )
        assert list(same) == ["rescore"] * 3
    assert stored["still"].importance_score == pytest.approx(0.375, abs=0)


async def test_escalation_marks_a_crossing_keeps_a_stay_and_clears_a_fall(
    services: Services, clock: FakeClock
) -> None:
    settings = services.settings.model_copy(update=EXACT)
    now = clock()
    marked = {"escalated_at": now - timedelta(days=2), "escalation_acknowledged_at": now}
    high = {"frequency_count": 3, "emotion_score": 1.0}  # 0.75: high
    rows = [
        _memory("escalation", "crossing", now, importance_level="medium", **high),
        _memory("escalation", "staying", now, importance_level="high", **high, **marked),
        _memory("escalation", "falling", now, importance_level="high", emotion_score=0.5, **marked),
        _memory("escalation", "low", now - timedelta(days=400), importance_level="low"),
    ]
    stored = await _rescored(services, settings, rows)
    marks = {
        name: (m.importance_level, m.escalated_at, m.escalation_acknowledged_at)
        for name, m in stored.items()
    }
    assert marks == {
        "crossing": ("high", now, None),
        "staying": ("high", now - timedelta(days=2), now),  # its crossing and its ack stay
        "falling": ("medium", None, None),
        "low": ("low", None, None),
    }


async def test_rescoring_by_id_touches_only_the_named_users_memories(
    services: Services, clock: FakeClock
) -> None:
    # An id of another user's memory, passed by mistake, must not rescore that memory.
    theirs = await services.add("them", "their note about the garden")
    clock.advance(days=30)
    async with services.db.unit_of_work() as session:
        await MemoryRepository(session).rescore(
            services.settings, clock(), "me", [theirs.id], "write"
        )
    assert (await services.get("them", theirs.id)).scored_at == theirs.scored_at
