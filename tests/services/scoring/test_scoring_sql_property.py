"""The scoring SQL agrees with the pure ImportanceScorer on memories Hypothesis draws.

test_rescoring.py checks a handful of memories written through the service; none had
both a recall and a mention, and none sat at the emotion floor, so SQL that took the
earlier of the two activities, or ``>`` for ``>=`` at the floor, passed it. Here each
example inserts memories with every input drawn (counts, ages, both activity times, some
in the future, emotion at and around the floor, links) and scores them through each SQL
path: the scheduled job (a range), the by-id rescoring of every write, and a counted
recall (one statement on PostgreSQL). Every component, the score and the level must be
the scorer's for the row as stored. Runs on both databases like every database test.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from models import UserMemory
from services.repositories.memories import MemoryRepository
from services.scoring.jobs import run_rescore
from services.scoring.scorer import ImportanceScorer
from tests.conftest import FakeClock
from tests.factories import Services

# At, just below and just above the emotion floor (0.5), and the lexicon's usual weights.
EMOTIONS = [0.0, 0.1, 0.4999, 0.5, 0.5001, 0.6, 0.7, 0.84, 1.0]
_users = itertools.count()


@dataclass(frozen=True)
class Drawn:
    """One memory's inputs; times are days before now (negative: in the future)."""

    frequency_count: int
    age_days: float
    recalled_days_ago: float | None
    mentioned_days_ago: float | None
    emotion_score: float
    associated_count: int


_days = st.floats(min_value=-1.0, max_value=200.0, allow_nan=False)
memories = st.builds(
    Drawn,
    frequency_count=st.integers(min_value=0, max_value=7),
    age_days=st.floats(min_value=0.0, max_value=400.0, allow_nan=False),
    recalled_days_ago=st.none() | _days,
    mentioned_days_ago=st.none() | _days,
    emotion_score=st.sampled_from(EMOTIONS) | st.floats(min_value=0.0, max_value=1.0),
    associated_count=st.integers(min_value=0, max_value=8),
)

# The two drifts once found here, always tried: a recall 7 days ago after a mention 12 days ago
# (and the other way round), and an old memory at exactly the floor.
BOTH_ACTIVITIES = [Drawn(3, 20.0, 7.0, 12.0, 0.0, 0), Drawn(3, 20.0, 12.0, 7.0, 0.0, 0)]
AT_THE_FLOOR = [Drawn(0, 60.0, None, None, 0.5, 0)]
# At the bounds of the 0..1 range, and links beyond full impact. Beyond the range the
# database refuses the row (ck_user_memories_scores).
OUT_OF_RANGE = [Drawn(1, 0.0, None, None, 1.0, 9), Drawn(1, 0.0, None, None, 0.0, 0)]
# Where PostgreSQL's float8 arithmetic underflows (an error there, not 0): a subnormal
# emotion (found by this test, drawn as 5e-324) and decays of a century-old memory.
UNDERFLOWS = [Drawn(0, 0.0, None, None, 5e-324, 0), Drawn(2, 40000.0, 40000.0, None, 0.0, 0)]


def _at(now: datetime, days_ago: float | None) -> datetime | None:
    return None if days_ago is None else now - timedelta(days=days_ago)


async def _insert(services: Services, user: str, drawn: list[Drawn]) -> list[int]:
    now = services.clock()
    rows = [
        UserMemory(
            user_id=user,
            content=f"memory {i}",
            content_hash=f"{user}-{i}",
            created_at=now - timedelta(days=d.age_days),
            updated_at=now,
            frequency_count=d.frequency_count,
            last_recalled_at=_at(now, d.recalled_days_ago),
            last_mentioned_at=_at(now, d.mentioned_days_ago),
            emotion_score=d.emotion_score,
            associated_count=d.associated_count,
        )
        for i, d in enumerate(drawn)
    ]
    async with services.db.unit_of_work() as session:
        session.add_all(rows)
        await session.flush()
        return [row.id for row in rows]


async def _assert_scored_as_the_scorer(services: Services, user: str, path: str) -> None:
    now = services.clock()
    scorer = ImportanceScorer(services.settings)
    async with services.db.unit_of_work() as session:
        stored = (await session.scalars(select(UserMemory).where(UserMemory.user_id == user))).all()
    for memory in stored:
        expected = scorer.breakdown(memory, now)
        where = f"{path}: memory {memory.content}"
        assert memory.scored_at == now, where
        assert memory.frequency_score == pytest.approx(expected.frequency, abs=1e-9), where
        assert memory.recency_score == pytest.approx(expected.recency, abs=1e-9), where
        assert memory.impact_score == pytest.approx(expected.impact, abs=1e-9), where
        assert memory.importance_score == pytest.approx(expected.score, abs=1e-9), where
        # Only a score within float noise of a threshold may land on either side of it.
        edges = (services.settings.level_high, services.settings.level_medium)
        if all(abs(expected.score - edge) > 1e-9 for edge in edges):
            assert memory.importance_level == expected.level, where


@settings(
    max_examples=30,
    derandomize=True,
    database=None,
    deadline=None,
    # One database per backend for the whole test; each example writes its own user.
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    drawn=st.lists(memories, min_size=1, max_size=6),
    later_days=st.floats(min_value=0.0, max_value=90.0, allow_nan=False),
    recalled=st.lists(st.booleans(), min_size=6, max_size=6),
)
@example(drawn=BOTH_ACTIVITIES + AT_THE_FLOOR + OUT_OF_RANGE, later_days=0.0, recalled=[False] * 6)
@example(drawn=BOTH_ACTIVITIES + AT_THE_FLOOR, later_days=3.5, recalled=[True] * 6)
@example(drawn=UNDERFLOWS, later_days=0.0, recalled=[True] * 6)
async def test_every_sql_path_scores_as_the_pure_scorer(
    services: Services,
    clock: FakeClock,
    drawn: list[Drawn],
    later_days: float,
    recalled: list[bool],
) -> None:
    user = f"drawn-{next(_users)}"
    ids = await _insert(services, user, drawn)

    run = await run_rescore(services.db, services.settings, clock, user_id=user)
    assert (run.status, run.rows) == ("succeeded", len(ids))
    await _assert_scored_as_the_scorer(services, user, "scheduled job")

    clock.advance(days=later_days)
    async with services.db.unit_of_work() as session:
        await MemoryRepository(session).rescore(services.settings, clock(), user, ids, "write")
    await _assert_scored_as_the_scorer(services, user, "by id")

    clock.advance(hours=1)
    counted = [i for i, hit in zip(ids, recalled, strict=False) if hit]
    async with services.db.unit_of_work() as session:
        await MemoryRepository(session).count_recalls(services.settings, user, counted, clock())
    if counted:
        await _assert_counted_as_the_scorer(services, user, counted)


async def _assert_counted_as_the_scorer(services: Services, user: str, counted: list[int]) -> None:
    """A counted recall rescored its hits (and only them) with the recall applied."""
    now = services.clock()
    scorer = ImportanceScorer(services.settings)
    async with services.db.unit_of_work() as session:
        stored = (await session.scalars(select(UserMemory).where(UserMemory.id.in_(counted)))).all()
    assert len(stored) == len(counted)
    for memory in stored:
        expected = scorer.breakdown(memory, now)
        assert memory.last_recalled_at == now
        assert memory.scored_at == now
        assert memory.frequency_score == pytest.approx(expected.frequency, abs=1e-9)
        assert memory.recency_score == pytest.approx(expected.recency, abs=1e-9)
        assert memory.importance_score == pytest.approx(expected.score, abs=1e-9)
