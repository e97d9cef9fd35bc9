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

from evals.bilingual_data import History, QuestionSet
from evals.embedding_step import embed_user
from evals.metrics import recall_at_k
from services.composition import Services
from services.core.clock import Clock
from services.embeddings.service import Embeddings
from services.remembering.memory_service import NewMemory

TOP_K = 5


@dataclass(frozen=True)
class System:
    """A configuration that answers: the composition root's services, built from its
    settings (with or without an embedder), on the run's database."""

    name: str
    description: str
    services: Services

    @property
    def embeddings(self) -> Embeddings | None:
        """The system's embedder, None for the offline one."""
        return self.services.embeddings


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


async def _write(services: Services, user_id: str, history: History) -> dict[int, set[str]]:
    """Remember a history's statements; memory id → the statement keys it holds."""
    items = [NewMemory(content=s.content, created_at=s.created_at) for s in history.statements]
    timed = services.at(_at(history))
    async with timed.db.unit_of_work() as session:
        stored = await timed.memories(session).add_many(user_id, items)
    keys: dict[int, set[str]] = {}
    for statement, result in zip(history.statements, stored, strict=True):
        keys.setdefault(result.memory.id, set()).add(statement.key)
    return keys


async def run_bilingual(
    sets: Sequence[QuestionSet], systems: Sequence[System], user_prefix: str
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
                    keys = await _write(system.services, user_id, history)
                    if system.embeddings is not None:
                        started = time.perf_counter()
                        db, settings = system.services.db, system.services.settings
                        clock = _at(history)
                        await embed_user(db, settings, clock, system.embeddings, user_id)
                        run.embed_seconds[system.name] += time.perf_counter() - started
                    written[key] = (user_id, keys)
                    if system is systems[0]:
                        run.memories += len(keys)
                user_id, keys = written[key]
                scores = run.scores.setdefault((question_set.name, system.name), Scores())
                for probe in probes:
                    ids = await _ask(user_id, history, probe.text, system)
                    scores.add(probe.text, probe.evidence, [keys.get(i, set()) for i in ids])
    return run


async def _ask(user_id: str, history: History, question: str, system: System) -> list[int]:
    """Recall's ranking at ``min_confidence`` 0, as LoCoMo's recall@k is asked
    (evals/locomo.py ``_ask``): the floor is measured on evals/people."""
    timed = system.services.at(_at(history))
    async with timed.db.unit_of_work() as session:
        hits = await timed.recall(session).recall_memories(
            user_id, question, TOP_K, track=False, min_confidence=0.0
        )
    return [hit.memory.id for hit in hits]
