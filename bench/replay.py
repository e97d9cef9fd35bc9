"""Replay a plan the way MemoryService.add_many would, as one batch, without a database.

For every statement, in order, the service either creates a memory or merges into one
(services/remembering/ingest.py):

- create memory m: record its topics and link it to the ``topic_links_per_memory``
  newest earlier memories sharing a topic (weight = number of shared topics);
- merge into m: ``mention_count`` and ``frequency_count`` + 1, ``last_mentioned_at`` =
  now.

At the end of the batch every memory is scored once: one history row each, reason
``write`` (a merge into a memory of the same batch is part of its write). The scores
themselves are written by the service's SQL when the loader is done.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from bench.plan import Plan
from services.core.settings import Settings
from services.remembering.impact import newest_sharing
from services.scoring.scorer import ImportanceScorer, ScoreBreakdown


@dataclass
class MemoryState:
    """The scoring facts of one memory as the service would have stored them."""

    created_at: datetime
    emotion_score: float
    frequency_count: int = 1
    mention_count: int = 1
    last_recalled_at: datetime | None = None
    last_mentioned_at: datetime | None = None
    associated_count: int = 0
    importance_level: str = "low"
    importance_score: float = 0.0
    scored: bool = False


@dataclass(frozen=True)
class Link:
    """A topic link between memory ``older`` and memory ``newer`` (plan numbering)."""

    older: int
    newer: int
    shared_topics: list[str]


@dataclass(frozen=True)
class HistoryEntry:
    """One row of memory_score_history for memory ``memory`` (plan numbering)."""

    memory: int
    reason: str
    breakdown: ScoreBreakdown


@dataclass
class Replay:
    """Everything the service would have written besides the rows' final scores."""

    states: list[MemoryState] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    history: list[HistoryEntry] = field(default_factory=list)


def replay(plan: Plan, settings: Settings, now: datetime) -> Replay:
    """The links, counts and history rows the service would write for ``plan``."""
    scorer = ImportanceScorer(settings)
    out = Replay()
    topics_of: list[list[str]] = []
    by_topic: dict[str, list[int]] = {}
    limit = settings.topic_links_per_memory
    for statement, analysis, m, creates in zip(
        plan.statements, plan.analyses, plan.memory_of, plan.creates, strict=True
    ):
        if not creates:
            state = out.states[m]
            state.mention_count += 1
            state.frequency_count += 1
            state.last_mentioned_at = now
            continue
        out.states.append(MemoryState(statement.created_at, analysis.emotion_score))
        topics_of.append(list(analysis.topics))
        linked = newest_sharing(by_topic, analysis.topics, limit)
        for topic in analysis.topics:
            by_topic.setdefault(topic, []).append(m)
        mine = set(analysis.topics)
        for other in linked:
            shared = sorted(t for t in topics_of[other] if t in mine)
            out.links.append(Link(other, m, shared))
            out.states[other].associated_count += 1
        out.states[m].associated_count = len(linked)
    for m, state in enumerate(out.states):
        out.history.append(HistoryEntry(m, "write", scorer.breakdown(state, now)))
    return out
