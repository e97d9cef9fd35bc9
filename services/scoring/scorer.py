"""ImportanceScorer: the four-component importance score of seed 002 §2-§3.

importance = 0.35·frequency + 0.20·recency + 0.25·emotion + 0.20·impact (weights in settings)

- frequency = min(1, frequency_count / 3) · 0.5 ** (days since the last recall or mention / 7)
  (seed §3.1; the last activity falls back to created_at when there was none)
- recency   = 0.5 ** (days since created_at / 30), at least 0.7 for emotion-tagged memories
  (seed §3.2)
- emotion   = max lexicon weight of the memory's emotion tags (seed §3.3)
- impact    = min(1, associated_count / 5) (seed §3.4)

The seed writes ``exp(-days/H)`` but calls H a half-life ("7 天减半", "30 天减半"). With
``exp`` the value after H days is 1/e, not 1/2, so this module implements true
half-lives, ``0.5 ** (days / H)``: after exactly H days a component is halved.

"Emotion-tagged" means an emotion weight of at least ``emotion_floor_min_weight`` (0.5):
indifference words such as 无所谓 (0.1) are tags too, but keeping such a memory fresh
would contradict what it says.

Every function is pure: the memory's facts, the settings and ``now`` go in, numbers
come out. The set-based SQL used for bulk rescoring
(services/repositories/statements/scoring_sql.py) mirrors these formulas and is tested
against them on both databases.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from services.core.settings import Settings

Level = Literal["high", "medium", "low"]


class ScorableMemory(Protocol):
    """The facts the scorer reads; ``models.UserMemory`` satisfies it."""

    @property
    def frequency_count(self) -> int: ...
    @property
    def created_at(self) -> datetime: ...
    @property
    def last_recalled_at(self) -> datetime | None: ...
    @property
    def last_mentioned_at(self) -> datetime | None: ...
    @property
    def emotion_score(self) -> float: ...
    @property
    def associated_count(self) -> int: ...
    @property
    def importance_level(self) -> str: ...


@dataclass(frozen=True)
class ScoreBreakdown:
    """The four components, their weighted contributions, the total and the level."""

    frequency: float
    recency: float
    emotion: float
    impact: float
    score: float
    level: Level

    def contributions(self, settings: Settings) -> dict[str, float]:
        """Each component times its weight; they add up to ``score`` (before clamping)."""
        return {
            "frequency": self.frequency * settings.weight_frequency,
            "recency": self.recency * settings.weight_recency,
            "emotion": self.emotion * settings.weight_emotion,
            "impact": self.impact * settings.weight_impact,
        }


def days_between(earlier: datetime, now: datetime) -> float:
    """Whole and fractional days from ``earlier`` to ``now``; never negative."""
    return max(0.0, (now - earlier).total_seconds() / 86400.0)


def half_life_decay(days: float, half_life_days: float) -> float:
    """0.5 ** (days / half_life): 1.0 now, 0.5 after one half-life."""
    return float(0.5 ** (days / half_life_days))


def last_activity(memory: ScorableMemory) -> datetime:
    """The latest recall or mention, or the creation time when there was none."""
    times = [t for t in (memory.last_recalled_at, memory.last_mentioned_at) if t is not None]
    return max(times) if times else memory.created_at


class ImportanceScorer:
    """Seed 002's scorer; constants come from settings, the clock is injected."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def frequency_score(self, memory: ScorableMemory, now: datetime) -> float:
        """Seed §3.1: saturating count times a decay since the last activity."""
        s = self.settings
        count = min(1.0, memory.frequency_count / s.frequency_threshold)
        return count * half_life_decay(
            days_between(last_activity(memory), now), s.frequency_half_life_days
        )

    def recency_score(self, memory: ScorableMemory, now: datetime) -> float:
        """Seed §3.2: decay since creation, floored for emotion-tagged memories."""
        s = self.settings
        score = half_life_decay(days_between(memory.created_at, now), s.recency_half_life_days)
        if memory.emotion_score >= s.emotion_floor_min_weight:
            score = max(score, s.emotion_recency_floor)
        return score

    def impact_score(self, memory: ScorableMemory) -> float:
        """Seed §3.4: associated memories, saturating at the threshold."""
        return min(1.0, memory.associated_count / self.settings.impact_threshold)

    def breakdown(self, memory: ScorableMemory, now: datetime) -> ScoreBreakdown:
        """All components, the weighted total clamped to [0, 1], and the level."""
        s = self.settings
        frequency = self.frequency_score(memory, now)
        recency = self.recency_score(memory, now)
        # Below 1e-12 an emotion is none (PostgreSQL's rescoring cannot multiply a
        # subnormal float: services/repositories/statements/scoring_sql.py).
        emotion = 0.0 if memory.emotion_score < 1e-12 else min(1.0, memory.emotion_score)
        impact = self.impact_score(memory)
        total = (
            s.weight_frequency * frequency
            + s.weight_recency * recency
            + s.weight_emotion * emotion
            + s.weight_impact * impact
        )
        score = min(1.0, max(0.0, total))
        return ScoreBreakdown(frequency, recency, emotion, impact, score, self.level_for(score))

    def calculate_score(self, memory: ScorableMemory, now: datetime) -> float:
        """Seed §5.1: the importance score in [0, 1]."""
        return self.breakdown(memory, now).score

    def level_for(self, score: float) -> Level:
        """high ≥ level_high (0.7), medium ≥ level_medium (0.4), else low."""
        if score >= self.settings.level_high:
            return "high"
        if score >= self.settings.level_medium:
            return "medium"
        return "low"

    def get_importance_level(self, memory: ScorableMemory, now: datetime) -> Level:
        """Seed §5.1: the level of the memory's current score."""
        return self.level_for(self.calculate_score(memory, now))

    def should_escalate(self, memory: ScorableMemory, now: datetime) -> bool:
        """Seed §5.1: the memory is crossing into ``high`` (its stored level is lower)."""
        return (
            memory.importance_level != "high" and self.get_importance_level(memory, now) == "high"
        )
