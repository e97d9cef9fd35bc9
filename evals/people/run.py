"""Write each person in a write mode through the composition root, then ask the questions.

Everything goes through ``services/composition.py``, as ``jarvis-memory serve`` builds it:
each turn is one ``MemoryService.add`` in its own unit of work with the clock at the
turn's instant, the backfill job embeds what the writes left (as the server's scheduler
does), and each question is one tracked recall of ``TOP_K`` through
``recall_and_track`` (what ``POST /recall`` runs), at the person's ``now``.

The two baselines answer the same questions over the same person's words: BM25 alone
(Lucene's idf, k1 1.2, b 0.75 over the service's own index terms) and the embedding
model's plain cosine alone (each memory's own text embedded alone, no floor). They always
return their best ``TOP_K``: they are compared on hit@1.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Final, Literal

from sqlalchemy import select

from evals.people.data import Person, Question, Turn
from models.memory import UserMemory
from services.composition import Services
from services.embeddings.jobs import run_embedding_backfill
from services.embeddings.vectors import Vector
from services.recall.recall_service import RecallHit
from services.recall.tracked import recall_and_track
from services.remembering.memory_service import NewMemory

TOP_K: Final = 5
Mode = Literal["statements", "user_turns", "all_turns"]
MODES: Final[tuple[Mode, ...]] = ("statements", "user_turns", "all_turns")


class StepClock:
    """The evaluation's clock: each turn's instant, then the person's ``now``."""

    def __init__(self) -> None:
        self.now = datetime(2026, 1, 1, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@dataclass(frozen=True)
class Returned:
    """One result: the turns its memory holds, and what they are for the question."""

    memory_id: int
    turns: frozenset[str]
    acceptable: bool
    answer: bool
    confidence: float | None
    evidence: dict[str, object] | None = None


@dataclass(frozen=True)
class Outcome:
    """One question's results and the counts its tracked recall added."""

    person: str
    mode: Mode
    question: Question
    returned: tuple[Returned, ...]
    counts_to_filler: int
    bm25_first: bool = False  # BM25 alone ranks an answer first
    dense_first: bool | None = False  # the plain cosine alone ranks an answer first
    ranked_first: bool = False  # recall's ranking, no confidence floor, puts an answer first

    @property
    def hit_at_1(self) -> bool:
        return bool(self.returned) and self.returned[0].answer

    @property
    def filler(self) -> int:
        return sum(not r.acceptable for r in self.returned)


@dataclass
class Store:
    """A person written in one mode: which turns each memory holds."""

    person: Person
    mode: Mode
    user_id: str
    turns_of: dict[int, set[str]] = field(default_factory=dict)


def written(person: Person, mode: Mode) -> list[Turn]:
    """The turns a frontend writes in ``mode``."""
    return [t for t in person.turns if mode == "all_turns" or t.role == "user"]


def new_memory(turn: Turn, mode: Mode) -> NewMemory:
    """The write a chat frontend makes for ``turn`` in ``mode``."""
    fields = NewMemory.__dataclass_fields__
    extra: dict[str, object] = {}
    if "role" in fields:
        extra["role"] = turn.role
    elif turn.role == "assistant":
        extra["source"] = "assistant"
    return NewMemory(
        content=turn.text,
        created_at=turn.at,
        conversation_id=None if mode == "statements" else turn.session,
        **extra,  # type: ignore[arg-type]
    )


async def write_store(
    services: Services, clock: StepClock, person: Person, mode: Mode, prefix: str
) -> Store:
    """Every turn of ``mode`` written on its own, then the backfill (if embeddings)."""
    store = Store(person, mode, f"{prefix}{person.person}-{mode}")
    for turn in written(person, mode):
        clock.now = turn.at
        async with services.db.unit_of_work() as session:
            stored = await services.memories(session).add(store.user_id, new_memory(turn, mode))
        store.turns_of.setdefault(stored.memory.id, set()).add(turn.id)
    if services.embeddings is not None:
        done = await run_embedding_backfill(
            services.db,
            services.settings,
            clock,
            services.embeddings,
            user_id=store.user_id,
            trigger="eval",
        )
        if done.status != "succeeded":
            raise RuntimeError(f"embedding {store.user_id} failed: {done.error}")
    return store


async def _recall_counts(services: Services, user_id: str) -> dict[int, int]:
    async with services.db.reader() as session:
        rows = await session.execute(
            select(UserMemory.id, UserMemory.recall_count).where(UserMemory.user_id == user_id)
        )
        return {int(i): int(c) for i, c in rows.all()}


def _returned(store: Store, q: Question, hit: RecallHit) -> Returned:
    turns = frozenset(store.turns_of.get(hit.memory.id, ()))
    return Returned(
        hit.memory.id,
        turns,
        bool(turns & q.acceptable),
        bool(turns & q.answers),
        hit.confidence,
        hit.evidence.as_dict() if hit.evidence else None,
    )


async def ask(services: Services, clock: StepClock, store: Store, q: Question) -> Outcome:
    """One tracked recall of ``TOP_K`` as ``POST /recall`` runs it, after an untracked one
    at ``min_confidence`` 0 (recall's ranking alone, compared with the baselines')."""
    ranked = await recall_and_track(
        services.db, services.recall, store.user_id, q.text, 1, track=False, min_confidence=0.0
    )
    ranked_first = bool(ranked) and bool(store.turns_of.get(ranked[0].memory.id, set()) & q.answers)
    before = await _recall_counts(services, store.user_id)
    hits = await recall_and_track(services.db, services.recall, store.user_id, q.text, TOP_K)
    after = await _recall_counts(services, store.user_id)
    filler = {mid for mid, turns in store.turns_of.items() if not (turns & q.acceptable)}
    added = sum(after.get(mid, 0) - before.get(mid, 0) for mid in filler)
    returned = tuple(_returned(store, q, h) for h in hits)
    return Outcome(store.person.person, store.mode, q, returned, added, ranked_first=ranked_first)


# --- baselines ---------------------------------------------------------------------------


def bm25_ranking(services: Services, texts: dict[int, str], query: str) -> list[int]:
    """Memory ids by plain BM25 over the service's index terms (k1 1.2, b 0.75)."""
    docs = {mid: services.analyzer.terms(t) for mid, t in texts.items()}
    n = len(docs)
    avg = sum(sum(d.values()) for d in docs.values()) / max(1, n)
    df: Counter[str] = Counter()
    for d in docs.values():
        df.update(d.keys())
    terms = services.analyzer.query_terms(query)
    scores: dict[int, float] = {}
    for mid, d in docs.items():
        length = sum(d.values())
        s = 0.0
        for term in terms:
            tf = d.get(term, 0)
            if not tf:
                continue
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            s += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * length / avg))
        if s > 0:
            scores[mid] = s
    return sorted(scores, key=lambda mid: (-scores[mid], mid))


def dense_ranking(query: Vector, vectors: dict[int, Vector]) -> list[int]:
    """Memory ids by cosine to the query (vectors are normalised)."""
    scored = {mid: sum(a * b for a, b in zip(query, v, strict=True)) for mid, v in vectors.items()}
    return sorted(scored, key=lambda mid: (-scored[mid], mid))


async def plain_vectors(services: Services, texts: dict[int, str]) -> dict[int, Vector]:
    """Each memory's own text embedded alone (the dense baseline's store)."""
    assert services.embeddings is not None
    ids = sorted(texts)
    vectors = await services.embeddings.embed([texts[i] for i in ids], seconds=600)
    return dict(zip(ids, vectors, strict=True))


def user_texts(store: Store) -> dict[int, str]:
    """The person's own words in the store: the baselines' documents."""
    by_id = {t.id: t for t in store.person.turns}
    return {
        mid: by_id[min(turns)].text
        for mid, turns in store.turns_of.items()
        if all(by_id[t].role == "user" for t in turns)
    }


def first_is_answer(store: Store, q: Question, ranking: Sequence[int]) -> bool:
    return bool(ranking) and bool(store.turns_of[ranking[0]] & q.answers)
