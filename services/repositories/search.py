"""The per-user inverted index: postings in, BM25 candidates out, all inside the database."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Float,
    Select,
    case,
    delete,
    func,
    insert,
    literal,
    select,
    union_all,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession

from models import MemoryTerm, MemoryTermStat, MemoryTopic, UserMemory
from services.repositories.bulk import ROWS_PER_INSERT, insert_rows
from services.repositories.dialect import group_key, upsert_insert


@dataclass(frozen=True)
class Posting:
    """One query term found in one memory."""

    memory_id: int
    term: str
    tf: int
    doc_length: int


# SQLite allows 500 terms in a compound SELECT; 100 keeps statements small on both.
TOPICS_PER_STATEMENT = 100


@dataclass(frozen=True)
class Postings:
    """A memory's index terms, ready to be written."""

    memory_id: int
    terms: Mapping[str, int]
    doc_length: int


class SearchRepository:
    """Reads and writes ``memory_terms`` and ``memory_topics`` for one session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def index(
        self, user_id: str, memory_id: int, terms: Mapping[str, int], doc_length: int
    ) -> None:
        """Write a memory's postings and count its terms' document frequencies."""
        await self.index_many(user_id, [Postings(memory_id, terms, doc_length)])

    async def index_many(self, user_id: str, postings: Sequence[Postings]) -> None:
        """Write the postings of many memories (bulk INSERTs of a few thousand rows)."""
        rows = [
            {
                "user_id": user_id,
                "term": term,
                "memory_id": p.memory_id,
                "tf": tf,
                "doc_length": p.doc_length,
            }
            for p in postings
            for term, tf in p.terms.items()
        ]
        await insert_rows(self.session, MemoryTerm, rows)
        await self._add_frequencies(user_id, Counter(t for p in postings for t in p.terms))

    async def _add_frequencies(self, user_id: str, counts: Mapping[str, int]) -> None:
        """Atomically add to terms' document frequencies (an upsert per term).

        Rows go in term order, so two writers of one user lock them in the same order
        and cannot deadlock on PostgreSQL.
        """
        if not counts:
            return
        make_insert = upsert_insert(self.session)
        st = MemoryTermStat.__table__.c
        rows = [{"user_id": user_id, "term": t, "df": counts[t]} for t in sorted(counts)]
        for start in range(0, len(rows), ROWS_PER_INSERT):
            stmt = make_insert(MemoryTermStat.__table__)
            stmt = stmt.on_conflict_do_update(
                index_elements=[st.user_id, st.term], set_={"df": st.df + stmt.excluded.df}
            )
            await self.session.execute(stmt, rows[start : start + ROWS_PER_INSERT])

    async def unindex(self, user_id: str, memory_id: int) -> None:
        """Remove a memory's postings, frequencies and topics (an edit or a delete)."""
        t, st = MemoryTerm, MemoryTermStat
        await self.session.execute(
            update(st)
            .where(
                st.user_id == user_id,
                st.term.in_(select(t.term).where(t.user_id == user_id, t.memory_id == memory_id)),
            )
            .values(df=st.df - 1)
            .execution_options(synchronize_session=False)
        )
        for model in (MemoryTerm, MemoryTopic):
            await self.session.execute(
                delete(model).where(model.user_id == user_id, model.memory_id == memory_id)
            )

    async def document_frequencies(self, user_id: str, terms: Sequence[str]) -> dict[str, int]:
        """How many of the user's memories contain each term (absent: none)."""
        st = MemoryTermStat
        unique = sorted(set(terms))
        found: dict[str, int] = {}
        for start in range(0, len(unique), ROWS_PER_INSERT):
            result = await self.session.execute(
                select(st.term, st.df).where(
                    st.user_id == user_id,
                    st.term.in_(unique[start : start + ROWS_PER_INSERT]),
                    st.df > 0,
                )
            )
            found.update((term, int(df)) for term, df in result)
        return found

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
        current_only: bool = False,
    ) -> list[tuple[int, float]]:
        """The ``limit`` best (memory_id, BM25) pairs, summed and ranked by the database.

        ``term_weights`` already holds idf × field weight per term; the database adds
        the saturating term-frequency part with length normalisation. ``current_only``
        leaves superseded memories out, through the few ids of
        ``ix_user_memories_user_superseded_by`` (postings carry no such flag).
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
        memory_id = group_key(t.memory_id)
        stmt = select(memory_id, score.label("score")).where(
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
        if current_only:
            stmt = stmt.where(
                t.memory_id.not_in(
                    select(UserMemory.id).where(
                        UserMemory.user_id == user_id, UserMemory.superseded_by_id.is_not(None)
                    )
                )
            )
        stmt = stmt.group_by(memory_id).order_by(score.desc(), memory_id.desc()).limit(limit)
        result = await self.session.execute(stmt)
        return [(int(mid), float(s)) for mid, s in result]

    async def holders(self, terms: Collection[str], user_id: str) -> dict[str, set[int]]:
        """Per term, the user's memories holding it (its whole posting list)."""
        return await self._group(user_id, MemoryTerm.term, MemoryTerm.memory_id, terms)

    async def term_sets(self, user_id: str, memory_ids: Collection[int]) -> dict[int, set[str]]:
        """Each memory's index terms (from the covering index on memory id)."""
        return await self._group(user_id, MemoryTerm.memory_id, MemoryTerm.term, memory_ids)

    async def _group(
        self, user_id: str, key: Any, value: Any, keys: Collection[Any]
    ) -> dict[Any, set[Any]]:
        """The user's postings whose ``key`` column is one of ``keys``: key → values."""
        unique = sorted(keys)
        found: dict[Any, set[Any]] = {}
        for start in range(0, len(unique), ROWS_PER_INSERT):
            result = await self.session.execute(
                select(key, value).where(
                    MemoryTerm.user_id == user_id,
                    key.in_(unique[start : start + ROWS_PER_INSERT]),
                )
            )
            for k, v in result:
                found.setdefault(k, set()).add(v)
        return found

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

    async def add_topics(self, user_id: str, memory_id: int, topics: Sequence[str]) -> None:
        """Record a memory's topics."""
        if not topics:
            return
        await self.session.execute(
            insert(MemoryTopic),
            [{"user_id": user_id, "topic": t, "memory_id": memory_id} for t in topics],
        )

    async def add_topics_many(self, user_id: str, topics: Mapping[int, Sequence[str]]) -> None:
        """Record the topics of many memories."""
        rows = [
            {"user_id": user_id, "topic": topic, "memory_id": memory_id}
            for memory_id, names in topics.items()
            for topic in names
        ]
        await insert_rows(self.session, MemoryTopic, rows)

    async def newest_by_topic(
        self, user_id: str, topics: Sequence[str], limit: int
    ) -> dict[str, list[int]]:
        """Per topic, the ids of its ``limit`` newest memories, oldest first.

        One index range scan of at most ``limit`` rows per topic (UNION ALL of limited
        subqueries), so a common topic costs no more than a rare one.
        """
        tp = MemoryTopic
        found: dict[str, list[int]] = {}
        names = sorted(set(topics))
        for start in range(0, len(names), TOPICS_PER_STATEMENT):
            parts: list[Select[Any]] = []
            for topic in names[start : start + TOPICS_PER_STATEMENT]:
                newest = (
                    select(tp.topic, tp.memory_id)
                    .where(tp.user_id == user_id, tp.topic == topic)
                    .order_by(tp.memory_id.desc())
                    .limit(limit)
                    .subquery()
                )
                parts.append(select(newest.c.topic, newest.c.memory_id))
            result = await self.session.execute(union_all(*parts))
            for topic, memory_id in result:
                found.setdefault(str(topic), []).append(int(memory_id))
        return {topic: sorted(ids) for topic, ids in found.items()}

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
