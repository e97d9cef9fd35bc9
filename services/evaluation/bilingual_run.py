"""Ask the bilingual question sets of several systems: offline and with embedders.

Each history is written once (one ``add_many``, no vectors: as a write is served), each
embedder's vectors are then made by the backfill job, as the scheduler would; every
system answers every question over the same memories, one user per history. A question
scores hit@1 (its top result answers it), hit@5 and R@5 (the share of its answering
statements among the top 5).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from services.core.clock import Clock
from services.core.db import Database
from services.core.settings import Settings
from services.embeddings.service import Embeddings
from services.evaluation.bilingual_data import History, QuestionSet
from services.evaluation.embedding_step import embed_user
from services.evaluation.metrics import recall_at_k
from services.recall.recall_service import RecallService
from services.remembering.memory_service import MemoryService, NewMemory
from services.text.analysis import TextAnalyzer

TOP_K = 5


@dataclass(frozen=True)
class System:
    """A configuration that answers: the service with or without an embedder."""

    name: str
    description: str
    embeddings: Embeddings | None


@dataclass
class Scores:
    """One system's results on one set."""

    hit1: list[float] = field(default_factory=list)
    hit5: list[float] = field(default_factory=list)
    recall5: list[float] = field(default_factory=list)
    misses: list[str] = field(default_factory=list)  # questions whose top result is wrong

    def add(self, question: str, evidence: frozenset[str], ranked: list[set[str]]) -> None:
        hit = bool(ranked) and bool(ranked[0] & evidence)
        self.hit1.append(float(hit))
        self.hit5.append(float(any(keys & evidence for keys in ranked[:TOP_K])))
        self.recall5.append(recall_at_k(evidence, ranked, TOP_K))
        if not hit:
            self.misses.append(question)


@dataclass
class BilingualRun:
    """Scores per (set, system), and how long embedding took per system."""

    scores: dict[tuple[str, str], Scores] = field(default_factory=dict)
    embed_seconds: dict[str, float] = field(default_factory=dict)
    memories: int = 0  # memories written per system (every history once)


def _at(history: History) -> Clock:
    """The clock of a history: fixed at the moment its questions are asked."""
    return lambda: history.now


async def _write(
    db: Database, settings: Settings, analyzer: TextAnalyzer, user_id: str, history: History
) -> dict[int, set[str]]:
    """Remember a history's statements; memory id → the statement keys it holds."""
    items = [NewMemory(content=s.content, created_at=s.created_at) for s in history.statements]
    async with db.unit_of_work() as session:
        service = MemoryService(session, settings, analyzer, _at(history))
        stored = await service.add_many(user_id, items)
    keys: dict[int, set[str]] = {}
    for statement, result in zip(history.statements, stored, strict=True):
        keys.setdefault(result.memory.id, set()).add(statement.key)
    return keys


async def run_bilingual(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    sets: Sequence[QuestionSet],
    systems: Sequence[System],
    user_prefix: str,
) -> BilingualRun:
    """Every system answers every question of every set."""
    run = BilingualRun(embed_seconds={s.name: 0.0 for s in systems if s.embeddings})
    # A memory holds one vector (of the current model), so every embedder gets its own
    # copy of each history: user ``<prefix><history>-<system>``.
    written: dict[tuple[str, str], tuple[str, dict[int, set[str]]]] = {}
    for question_set in sets:
        for history, probes in question_set.asked:
            for system in systems:
                key = (history.key, system.name)
                if key not in written:
                    user_id = f"{user_prefix}{history.key}-{system.name}"
                    keys = await _write(db, settings, analyzer, user_id, history)
                    if system.embeddings is not None:
                        started = time.perf_counter()
                        clock = _at(history)
                        await embed_user(db, settings, clock, system.embeddings, user_id)
                        run.embed_seconds[system.name] += time.perf_counter() - started
                    written[key] = (user_id, keys)
                    if system is systems[0]:
                        run.memories += len(keys)
                user_id, keys = written[key]
                scores = run.scores.setdefault((question_set.name, system.name), Scores())
                for probe in probes:
                    ids = await _ask(db, settings, analyzer, user_id, history, probe.text, system)
                    scores.add(probe.text, probe.evidence, [keys.get(i, set()) for i in ids])
    return run


async def _ask(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    user_id: str,
    history: History,
    question: str,
    system: System,
) -> list[int]:
    async with db.unit_of_work() as session:
        semantic = system.embeddings.source(session) if system.embeddings else None
        service = RecallService(session, settings, analyzer, _at(history), semantic=semantic)
        hits = await service.recall_memories(user_id, question, TOP_K, track=False)
    return [hit.memory.id for hit in hits]
