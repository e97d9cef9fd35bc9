"""The per-user inverted index: postings in, BM25 candidates out, all inside the database."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import (
    delete,
    insert,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession

from models import MemoryTerm, MemoryTermStat, MemoryTopic
from services.repositories.dialect import driver_sql
from services.repositories.dialect.bulk import ROWS_PER_INSERT, insert_rows
from services.repositories.dialect.seam import dialect_of, one_of
from services.repositories.memories import MemorySketch
from services.repositories.neighbours import Neighbour, NeighbourRepository, neighbours_from_rows
from services.repositories.statements import write_sql
from services.repositories.statements.bm25_sql import Bm25Query, bm25_parameters, bm25_statement
from services.repositories.statements.statistics_sql import (
    corpus_statistics_parameters,
    corpus_statistics_statement,
)
from services.repositories.statements.topic_sql import newest_by_topic_queries


@dataclass(frozen=True)
class Posting:
    """One query term found in one memory."""

    memory_id: int
    term: str
    tf: int
    doc_length: int


@dataclass(frozen=True)
class CorpusStatistics:
    """What BM25 needs to know of one user's memories for one query."""

    memory_count: int
    total_doc_length: int
    document_frequencies: dict[str, int]


@dataclass(frozen=True)
class Bm25Result:
    """A BM25 search's candidates, best first, and the statistics that scored them."""

    candidates: list[tuple[float, MemorySketch]]
    term_weights: dict[str, float]  # idf × field weight of every query term held
    avg_doc_length: float  # 0 for a user with no memories
    neighbours: list[Neighbour] = field(default_factory=list)  # of Bm25Query.around's
    # The terms read only up to a document length (pruned: Bm25Query.term_postings and
    # term_share): a memory longer than its term's cutoff got nothing for that term.
    term_cutoffs: dict[str, int] = field(default_factory=dict)
    # Bm25Query.successors: (a superseded match's score, its id, the current memory that
    # replaced it), best first.
    successors: list[tuple[float, int, MemorySketch]] = field(default_factory=list)
    documents: int = 0  # the user's memories (N): a query term none holds weighs ln(1 + 2N + 1)


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
        self.dialect = dialect_of(session)

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
        statement = write_sql.add_frequencies(self.dialect)
        terms = sorted(counts)
        for start in range(0, len(terms), ROWS_PER_INSERT):
            chunk = terms[start : start + ROWS_PER_INSERT]
            if self.dialect == "postgresql":
                params = {"owner": user_id, "terms": chunk, "dfs": [counts[t] for t in chunk]}
                await driver_sql.execute(self.session, statement, params)
            else:
                rows = [{"user_id": user_id, "term": t, "df": counts[t]} for t in chunk]
                await self.session.execute(statement, rows)

    async def unindex(self, user_id: str, memory_id: int) -> None:
        """Remove a memory's postings, frequencies and topics (an edit or a delete).

        A term no other memory of the user holds loses its ``memory_term_stats`` row
        altogether: a row at ``df = 0`` still said the user once wrote that word,
        so forgetting leaves no statistic of the forgotten text behind.
        """
        t, st = MemoryTerm, MemoryTermStat
        held = select(t.term).where(t.user_id == user_id, t.memory_id == memory_id)
        await self.session.execute(
            update(st)
            .where(st.user_id == user_id, st.term.in_(held))
            .values(df=st.df - 1)
            .execution_options(synchronize_session=False)
        )
        await self.session.execute(
            delete(st)
            .where(st.user_id == user_id, st.term.in_(held), st.df <= 0)
            .execution_options(synchronize_session=False)
        )
        for model in (MemoryTerm, MemoryTopic):
            await self.session.execute(
                delete(model).where(model.user_id == user_id, model.memory_id == memory_id)
            )

    async def document_frequencies(self, user_id: str, terms: Sequence[str]) -> dict[str, int]:
        """How many of the user's memories contain each term (absent: none)."""
        return (await self.corpus_statistics(user_id, terms)).document_frequencies

    async def corpus_statistics(self, user_id: str, terms: Sequence[str]) -> CorpusStatistics:
        """N, the summed document length and each term's df, in one round trip.

        The user's ``memory_users`` row and the terms' ``memory_term_stats`` rows come
        back as one UNION ALL (the user row tagged by a NULL term), because a recall pays
        a round trip per statement and this pair used to be two.
        """
        statement = corpus_statistics_statement(self.dialect)
        params = corpus_statistics_parameters(self.dialect, user_id, terms)
        count, length, found = 0, 0, {}
        for term, number, total in await driver_sql.fetch_all(self.session, statement, params):
            if term is None:
                count, length = int(number), int(total)
            else:
                found[str(term)] = int(number)
        return CorpusStatistics(count, length, found)

    async def bm25_search(self, query: Bm25Query) -> Bm25Result:
        """The ``query.limit`` best memories and their BM25 (best first), ranked by the
        database with the statistics it read in the same statement (bm25_sql.py), and
        the neighbours of the hits ``query.around`` picks: read by the same statement on
        PostgreSQL, where a statement costs a round trip, and by a second one on SQLite."""
        if not query.field_weights:
            return Bm25Result([], {}, 0.0)
        statement = bm25_statement(self.dialect, bool(query.types), query.current_only)
        rows = await driver_sql.fetch_all(
            self.session, statement, bm25_parameters(self.dialect, query)
        )
        found: list[tuple[float, MemorySketch]] = []
        weights: dict[str, float] = {}
        cutoffs: dict[str, int] = {}
        avg_doc_length = 0.0
        documents = 0
        around: list[tuple[int, bool, MemorySketch]] = []
        successors: list[tuple[float, int, MemorySketch]] = []
        for row in rows:
            (
                mid,
                score,
                text,
                importance,
                at,
                conversation,
                kind,
                role,
                term,
                anchor,
                before,
                cut,
                via,
            ) = row
            if mid is None:  # the statistics
                if term is None:
                    avg_doc_length = float(score)
                    documents = int(importance or 0)
                else:
                    weights[str(term)] = float(score)
                    if cut is not None:
                        cutoffs[str(term)] = int(cut)
                continue
            sketch = MemorySketch(int(mid), text, importance, at, conversation, kind, role)
            if via is not None:
                successors.append((float(score), int(via), sketch))
            elif anchor is None:
                found.append((float(score), sketch))
            else:
                around.append((int(anchor), bool(before), sketch))
        found.sort(key=lambda pair: (-pair[0], -pair[1].id))
        successors.sort(key=lambda s: (-s[0], -s[1]))
        neighbours = await self._neighbours(query, found, around)
        return Bm25Result(
            found, weights, avg_doc_length, neighbours, cutoffs, successors, documents
        )

    async def _neighbours(
        self,
        query: Bm25Query,
        found: list[tuple[float, MemorySketch]],
        read: list[tuple[int, bool, MemorySketch]],
    ) -> list[Neighbour]:
        """The neighbours the BM25 statement read, or on SQLite their own statement's."""
        spec = query.around
        if spec is None or spec.radius < 1:
            return []
        if self.dialect == "postgresql":
            return neighbours_from_rows(read)
        return await NeighbourRepository(self.session).around(
            query.user_id,
            spec.pick(found),
            radius=spec.radius,
            window=spec.window,
            types=query.types,
            current_only=query.current_only,
        )

    async def holders(self, terms: Collection[str], user_id: str) -> dict[str, set[int]]:
        """Per term, the user's memories holding it (its whole posting list)."""
        return await self._group(user_id, "term", terms)

    async def most_held(
        self, user_id: str, terms: Collection[str], need: int, limit: int
    ) -> list[int]:
        """The user's memories holding at least ``need`` of ``terms``, most held first
        (then newest), at most ``limit``: counted by the database, so none of the
        postings travel (for one text's near-duplicate candidates)."""
        if not terms:
            return []
        params = {"owner": user_id, "terms": list(terms), "need": need, "limit": limit}
        rows = await driver_sql.fetch_all(self.session, write_sql.most_held(self.dialect), params)
        return [int(row[0]) for row in rows]

    async def term_sets(self, user_id: str, memory_ids: Collection[int]) -> dict[int, set[str]]:
        """Each memory's index terms (from the covering index on memory id)."""
        return await self._group(user_id, "memory_id", memory_ids)

    async def _group(self, user_id: str, key: str, keys: Collection[Any]) -> dict[Any, set[Any]]:
        """The user's postings whose ``key`` column is one of ``keys``: key → the other
        column's values (write_sql.grouped_postings)."""
        unique = sorted(keys)
        statement = write_sql.grouped_postings(self.dialect, key)
        found: dict[Any, set[Any]] = {}
        for start in range(0, len(unique), ROWS_PER_INSERT):
            params = {"owner": user_id, "keys": unique[start : start + ROWS_PER_INSERT]}
            rows = await driver_sql.fetch_all(self.session, statement, params)
            if self.dialect == "postgresql":
                found.update((k, set(vs)) for k, vs in rows)
            else:
                for k, v in rows:
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
                t.user_id == user_id,
                one_of(self.dialect, t.memory_id, memory_ids),
                one_of(self.dialect, t.term, terms),
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

        One index range scan of at most ``limit`` rows per topic, in one fixed statement
        (services/repositories/statements/topic_sql.py), so a common topic costs no more
        than a rare one.
        """
        found: dict[str, list[int]] = {}
        queries = newest_by_topic_queries(self.dialect, user_id, sorted(set(topics)), limit)
        for statement, params in queries:
            for topic, memory_id in await driver_sql.fetch_all(self.session, statement, params):
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
