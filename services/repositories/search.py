"""The per-user inverted index: postings in, BM25 candidates out, all inside the database."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import Float, case, delete, func, insert, literal, select
from sqlalchemy.ext.asyncio import AsyncSession

from models import MemoryTerm, MemoryTopic, UserMemory


@dataclass(frozen=True)
class Posting:
    """One query term found in one memory."""

    memory_id: int
    term: str
    tf: int
    doc_length: int


class SearchRepository:
    """Reads and writes ``memory_terms`` and ``memory_topics`` for one session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def index(
        self, user_id: str, memory_id: int, terms: Mapping[str, int], doc_length: int
    ) -> None:
        """Write a memory's postings (one bulk INSERT)."""
        if not terms:
            return
        await self.session.execute(
            insert(MemoryTerm),
            [
                {
                    "user_id": user_id,
                    "term": term,
                    "memory_id": memory_id,
                    "tf": tf,
                    "doc_length": doc_length,
                }
                for term, tf in terms.items()
            ],
        )

    async def unindex(self, user_id: str, memory_id: int) -> None:
        """Remove a memory's postings and topics (before re-indexing edited content)."""
        for model in (MemoryTerm, MemoryTopic):
            await self.session.execute(
                delete(model).where(model.user_id == user_id, model.memory_id == memory_id)
            )

    async def document_frequencies(self, user_id: str, terms: Sequence[str]) -> dict[str, int]:
        """How many of the user's memories contain each term (index-only count)."""
        if not terms:
            return {}
        result = await self.session.execute(
            select(MemoryTerm.term, func.count())
            .where(MemoryTerm.user_id == user_id, MemoryTerm.term.in_(terms))
            .group_by(MemoryTerm.term)
        )
        return {term: int(count) for term, count in result}

    async def bm25_candidates(
        self,
        user_id: str,
        term_weights: Mapping[str, float],
        *,
        k1: float,
        b: float,
        avg_doc_length: float,
        limit: int,
        types: Sequence[str] = (),
        exclude: Sequence[int] = (),
    ) -> list[tuple[int, float]]:
        """The ``limit`` best (memory_id, BM25) pairs, summed and ranked by the database.

        ``term_weights`` already holds idf × field weight per term; the database adds
        the saturating term-frequency part with length normalisation.
        """
        if not term_weights:
            return []
        t = MemoryTerm
        weight = case(
            *[(t.term == term, literal(w, Float())) for term, w in term_weights.items()],
            else_=literal(0.0, Float()),
        )
        norm = literal(k1, Float()) * (
            literal(1.0 - b, Float())
            + literal(b / max(avg_doc_length, 1e-9), Float()) * t.doc_length
        )
        score = func.sum(weight * t.tf * literal(k1 + 1.0, Float()) / (t.tf + norm))
        stmt = select(t.memory_id, score.label("score")).where(
            t.user_id == user_id, t.term.in_(list(term_weights))
        )
        if types:
            stmt = stmt.where(
                t.memory_id.in_(
                    select(UserMemory.id).where(
                        UserMemory.user_id == user_id, UserMemory.memory_type.in_(types)
                    )
                )
            )
        if exclude:
            stmt = stmt.where(t.memory_id.not_in(exclude))
        stmt = stmt.group_by(t.memory_id).order_by(score.desc(), t.memory_id.desc()).limit(limit)
        result = await self.session.execute(stmt)
        return [(int(mid), float(s)) for mid, s in result]

    async def postings(
        self, user_id: str, memory_ids: Sequence[int], terms: Sequence[str]
    ) -> list[Posting]:
        """The postings of these terms in these memories (for explanations)."""
        if not memory_ids or not terms:
            return []
        t = MemoryTerm
        result = await self.session.execute(
            select(t.memory_id, t.term, t.tf, t.doc_length).where(
                t.user_id == user_id, t.memory_id.in_(memory_ids), t.term.in_(terms)
            )
        )
        return [Posting(int(m), str(term), int(tf), int(dl)) for m, term, tf, dl in result]

    async def terms_of(self, user_id: str, memory_ids: Sequence[int]) -> dict[int, set[str]]:
        """The full term set of each memory (for near-duplicate checks)."""
        if not memory_ids:
            return {}
        t = MemoryTerm
        result = await self.session.execute(
            select(t.memory_id, t.term).where(t.user_id == user_id, t.memory_id.in_(memory_ids))
        )
        sets: dict[int, set[str]] = {}
        for memory_id, term in result:
            sets.setdefault(int(memory_id), set()).add(str(term))
        return sets

    async def add_topics(self, user_id: str, memory_id: int, topics: Sequence[str]) -> None:
        """Record a memory's topics."""
        if not topics:
            return
        await self.session.execute(
            insert(MemoryTopic),
            [{"user_id": user_id, "topic": t, "memory_id": memory_id} for t in topics],
        )

    async def memories_sharing_topics(
        self, user_id: str, memory_id: int, topics: Sequence[str], limit: int
    ) -> dict[int, list[str]]:
        """Other memories sharing any of these topics (newest first) and the shared topics."""
        if not topics:
            return {}
        tp = MemoryTopic
        newest = (
            select(tp.memory_id)
            .where(tp.user_id == user_id, tp.topic.in_(topics), tp.memory_id != memory_id)
            .group_by(tp.memory_id)
            .order_by(tp.memory_id.desc())
            .limit(limit)
        )
        ids = [int(i) for i in (await self.session.execute(newest)).scalars()]
        if not ids:
            return {}
        rows = await self.session.execute(
            select(tp.memory_id, tp.topic).where(
                tp.user_id == user_id, tp.topic.in_(topics), tp.memory_id.in_(ids)
            )
        )
        shared: dict[int, list[str]] = {}
        for mid, topic in rows:
            shared.setdefault(int(mid), []).append(str(topic))
        return shared
