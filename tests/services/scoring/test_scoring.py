"""ImportanceScorer against hand-computed values (pure: no database)."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import pytest

from services.core.settings import Settings
from services.scoring.scorer import ImportanceScorer, days_between, half_life_decay, last_activity

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class Facts:
    frequency_count: int = 0
    created_at: datetime = NOW
    last_recalled_at: datetime | None = None
    last_mentioned_at: datetime | None = None
    emotion_score: float = 0.0
    associated_count: int = 0
    importance_level: str = "low"


@pytest.fixture
def scorer() -> ImportanceScorer:
    return ImportanceScorer(Settings(_env_file=None))


def test_half_life_is_a_true_half_life() -> None:
    assert half_life_decay(0, 7) == 1.0
    assert half_life_decay(7, 7) == pytest.approx(0.5)
    assert half_life_decay(30, 30) == pytest.approx(0.5)
    assert half_life_decay(60, 30) == pytest.approx(0.25)
    # The seed's exp(-days/H) would give 1/e here; we deliberately do not.
    assert half_life_decay(7, 7) != pytest.approx(math.exp(-1))


def test_days_between_never_negative() -> None:
    assert days_between(NOW, NOW + timedelta(hours=36)) == pytest.approx(1.5)
    assert days_between(NOW + timedelta(days=2), NOW) == 0.0


def test_frequency_saturates_at_three_and_decays_since_last_activity(
    scorer: ImportanceScorer,
) -> None:
    assert scorer.frequency_score(Facts(frequency_count=1), NOW) == pytest.approx(1 / 3)
    assert scorer.frequency_score(Facts(frequency_count=3), NOW) == pytest.approx(1.0)
    assert scorer.frequency_score(Facts(frequency_count=9), NOW) == pytest.approx(1.0)
    seven_days_ago = NOW - timedelta(days=7)
    recalled = Facts(frequency_count=3, created_at=seven_days_ago, last_recalled_at=seven_days_ago)
    assert scorer.frequency_score(recalled, NOW) == pytest.approx(0.5)
    # A more recent mention resets the decay clock.
    mentioned = replace(recalled, last_mentioned_at=NOW - timedelta(days=1))
    assert scorer.frequency_score(mentioned, NOW) == pytest.approx(0.5 ** (1 / 7))


def test_last_activity_falls_back_to_creation() -> None:
    created = NOW - timedelta(days=3)
    assert last_activity(Facts(created_at=created)) == created
    later = NOW - timedelta(days=1)
    assert last_activity(Facts(created_at=created, last_recalled_at=later)) == later


def test_recency_halves_every_thirty_days_with_emotion_floor(scorer: ImportanceScorer) -> None:
    old = Facts(created_at=NOW - timedelta(days=30))
    assert scorer.recency_score(old, NOW) == pytest.approx(0.5)
    very_old = Facts(created_at=NOW - timedelta(days=90))
    assert scorer.recency_score(very_old, NOW) == pytest.approx(0.125)
    # Emotion-tagged memories keep recency >= 0.7 (seed 002 §3.2).
    assert scorer.recency_score(replace(very_old, emotion_score=0.7), NOW) == pytest.approx(0.7)
    # Indifference (无所谓 0.1) is not an emotion worth keeping fresh.
    assert scorer.recency_score(replace(very_old, emotion_score=0.1), NOW) == pytest.approx(0.125)


def test_impact_saturates_at_five_links(scorer: ImportanceScorer) -> None:
    assert scorer.impact_score(Facts(associated_count=2)) == pytest.approx(0.4)
    assert scorer.impact_score(Facts(associated_count=12)) == pytest.approx(1.0)


def test_weighted_total_by_hand(scorer: ImportanceScorer) -> None:
    facts = Facts(
        frequency_count=2,
        created_at=NOW - timedelta(days=30),
        emotion_score=0.8,
        associated_count=1,
    )
    # frequency 2/3·0.5^(30/7); recency max(0.5, 0.7) = 0.7; emotion 0.8; impact 0.2
    frequency = 2 / 3 * 0.5 ** (30 / 7)
    expected = 0.35 * frequency + 0.20 * 0.7 + 0.25 * 0.8 + 0.20 * 0.2
    breakdown = scorer.breakdown(facts, NOW)
    assert breakdown.score == pytest.approx(expected)
    assert sum(breakdown.contributions(scorer.settings).values()) == pytest.approx(expected)
    assert expected < 0.4
    assert breakdown.level == "low"


def test_high_frequency_plus_emotion_is_at_least_point_eight(scorer: ImportanceScorer) -> None:
    """Seed 002 acceptance: 高频 + 情绪 = importance >= 0.8."""
    facts = Facts(frequency_count=3, emotion_score=1.0)
    assert scorer.calculate_score(facts, NOW) >= 0.8
    assert scorer.get_importance_level(facts, NOW) == "high"


def test_levels_and_escalation(scorer: ImportanceScorer) -> None:
    assert scorer.level_for(0.7) == "high"
    assert scorer.level_for(0.69) == "medium"
    assert scorer.level_for(0.4) == "medium"
    assert scorer.level_for(0.39) == "low"
    crossing = Facts(frequency_count=3, emotion_score=1.0, importance_level="medium")
    assert scorer.should_escalate(crossing, NOW)
    assert not scorer.should_escalate(replace(crossing, importance_level="high"), NOW)
    assert not scorer.should_escalate(Facts(frequency_count=1), NOW)


def test_constants_come_from_settings() -> None:
    custom = ImportanceScorer(Settings(_env_file=None, frequency_threshold=1, weight_frequency=1.0))
    assert custom.frequency_score(Facts(frequency_count=1), NOW) == pytest.approx(1.0)
    assert custom.calculate_score(Facts(frequency_count=1), NOW) == pytest.approx(1.0)


def test_seed_ranking_puts_the_emotional_memory_first(scorer: ImportanceScorer) -> None:
    """Seed 002 §7.3: ranked[0] == emotional among low_freq, high_freq and emotional."""
    low_freq = Facts(frequency_count=1)
    high_freq = Facts(frequency_count=3)
    emotional = Facts(frequency_count=1, emotion_score=1.0)
    memories = {"low_freq": low_freq, "high_freq": high_freq, "emotional": emotional}
    ranked = sorted(memories, key=lambda name: -scorer.calculate_score(memories[name], NOW))
    assert ranked == ["emotional", "high_freq", "low_freq"]


def test_contributions_are_named_by_component_and_emotion_is_clamped(
    scorer: ImportanceScorer,
) -> None:
    # An emotion score outside 0..1 (an import, a manual edit) counts as its bound.
    loud = scorer.breakdown(Facts(emotion_score=1.5, associated_count=10), NOW)
    assert (loud.emotion, loud.impact) == (1.0, 1.0)
    assert loud.contributions(scorer.settings) == pytest.approx(
        {"frequency": 0.0, "recency": 0.20, "emotion": 0.25, "impact": 0.20}
    )
    assert scorer.breakdown(Facts(emotion_score=-0.5), NOW).emotion == 0.0
