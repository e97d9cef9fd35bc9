"""Recall: rank a user's memories by named signals fused with weights per query type.

    score(m) = Σ_s weight_s(query type) · value_s(m)        (services/recall/ranking/signals.py)

1. The query is understood once (services/recall/ranking/understanding.py): index terms, query
   type (seed 004 §4.3), time expression, phrases.
2. Candidates are the ``recall_candidates`` best BM25 matches, ranked inside the database
   from the per-user inverted index, plus a semantic source's nearest memories when one is
   configured, plus the neighbours of the strongest hits (session continuity, seed 004
   §4.2), fetched by an index range scan (by the BM25 statement itself on PostgreSQL).
   A user's other memories are never loaded.
3. Each candidate gets every signal whose weight is not 0; the weighted sum ranks them.
4. An optional reranker rescores the best of them, fused with that score by query type
   (seed 004 §1, services/recall/ranking/rerank.py), and MMR (seed 004 §4.5) re-orders the head
   for variety.
5. Each of the head gets its evidence and confidence (services/recall/evidence.py,
   services/recall/confidence.py). A hit without query-dependent evidence, or below
   ``min_confidence``, is dropped, and a neighbour whose anchor was dropped goes with it:
   a recall may return fewer than ``top_k`` results, or none.

A query that names a day or a week (「前天」, "on 5 March") also takes the memories said
then as candidates, and one that asks about urgency or a feeling (「我有什么急事？」) the
memories tagged so (services/recall/ranking/feelings.py).

An empty query (or one with nothing to look for: no content words, no time, no feeling)
returns the most important memories, scored by importance alone; such hits have no
evidence and no confidence, and a tracked recall does not count them.

Superseded memories (fact correction, services/remembering/facts) are left out of every candidate
source unless ``include_superseded``; then they compete like any other and carry their
``superseded_by_id``. Left out, the best of them that match the query lend their BM25
to the current memory that replaced them (``RECALL_SUCCESSORS``): a question matches
the words of the fact as first stated, and its answer is the fact as it stands.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from models import UserMemory
from services.core.clock import Clock
from services.core.errors import EmbeddingBusy, InvalidInput, MemoryNotFound
from services.core.metrics import RECALL_RESULTS, RECALL_SECONDS
from services.core.settings import Settings, SignalWeights
from services.core.time_zones import check_time_zone, person_zone
from services.core.validation import MAX_TOP_K, check_user_id
from services.embeddings.nearest import relative_to_best
from services.embeddings.similarities import Similarities
from services.recall.confidence import confidence
from services.recall.evidence import Evidence, QueryWeights, spelled_out, unknown_term_idf
from services.recall.ranking.continuity import Continuity, continuity_values
from services.recall.ranking.cross_lingual import cross_lingual_values, in_other_language
from services.recall.ranking.diversity import mmr_order
from services.recall.ranking.explanation import explain_fused, explain_importance_only
from services.recall.ranking.feelings import feeling_match
from services.recall.ranking.phrases import QueryPhrases, phrase_score, text_features
from services.recall.ranking.rerank import HttpReranker, Reranked, RerankMode, rerank
from services.recall.ranking.semantic import SemanticSource
from services.recall.ranking.signals import (
    Contribution,
    SignalTable,
    contributions,
    fused_scores,
    recency,
    signal_values,
)
from services.recall.ranking.understanding import QueryUnderstanding, understand
from services.recall.relevance import field_weights
from services.repositories.memories import MemoryRepository, MemorySketch, refresh_from_row
from services.repositories.neighbours import AroundHits, Neighbour
from services.repositories.search import SearchRepository
from services.repositories.statements.bm25_sql import Bm25Query
from services.text.analysis import TextAnalyzer, term_kind

log = logging.getLogger(__name__)
# Decimal digits a fused score keeps (float noise below them is not a difference).
SCORE_DIGITS = 12

# Queries up to this long are analysed on the event loop (a 200-character Chinese query
# takes about 0.6 ms; the bench's take 0.1 ms, less than the thread hop they used to pay).
INLINE_QUERY_CHARS = 200
# The head of the ranking that gets evidence: hits dropped for want of it leave room for
# the next ones, so a recall looks this far past top_k.
EVIDENCE_HEAD = 20
# A query's time span at most this long brings the memories said within it as candidates
# (a day, a week); a month would bring a month of memories that share nothing else.
SPAN_CANDIDATES_DAYS = 7
# Whose words recall never returns: the assistant's (a memory's ``role``).
ASSISTANT = "assistant"
# How far past top_k an empty query reads, to fill top_k with the person's own words.
ASSISTANT_MARGIN = 20


@dataclass(frozen=True)
class RecallHit:
    """One recalled memory with the numbers behind its rank."""

    memory: UserMemory
    score: float
    relevance: float
    importance: float
    bm25: float = 0.0
    explanation: dict[str, Any] | None = None
    signals: dict[str, Contribution] = field(default_factory=dict)
    continuity: Continuity | None = None
    max_similarity: float = 0.0  # to a better-placed result (MMR)
    rerank: Reranked | None = None  # set when a reranker rescored this recall
    # services/recall/evidence.py and confidence.py; None for an empty query's hits.
    evidence: Evidence | None = None
    confidence: float | None = None
    counted: bool = False  # a tracked recall raised its recall_count (``counts``)


@dataclass(frozen=True)
class _Lexical:
    """BM25 candidates and what explaining them needs."""

    bm25: dict[int, float]
    term_weights: dict[str, float]
    avg_doc_length: float
    rows: dict[int, MemorySketch] = field(default_factory=dict)  # read with the scores
    neighbours: list[Neighbour] = field(default_factory=list)  # of the strongest hits
    term_cutoffs: dict[str, int] = field(default_factory=dict)  # Bm25Result.term_cutoffs
    # A current memory scored with the BM25 of a superseded match → that match's id.
    via: dict[int, int] = field(default_factory=dict)
    documents: int = 0  # the user's memories (N)


@dataclass(frozen=True)
class _Candidates:
    """Every memory worth scoring for one recall, with what each source said about it."""

    lexical: _Lexical
    relevance: dict[int, float]  # BM25 / the best BM25
    similar: dict[int, float]  # the semantic source's cosine (evidence)
    continuity: dict[int, Continuity]
    rows: dict[int, MemorySketch]
    feelings: dict[int, float] = field(default_factory=dict)  # feeling_match
    semantic: dict[int, float] = field(default_factory=dict)  # relative to the best (ranking)
    semantic_on: bool = False  # a semantic source was asked and answered
    # The similar memories in the other language than the query (ranking).
    cross_lingual: dict[int, float] = field(default_factory=dict)
    # How the query scores across the user's whole store (Similarities.standing).
    spread: Similarities = field(default_factory=Similarities)


class RecallService:
    """Ranks, tracks and explains recalls for one session."""

    def __init__(
        self,
        session: AsyncSession,
        settings: Settings,
        analyzer: TextAnalyzer,
        clock: Clock,
        semantic: SemanticSource | None = None,
        reranker: HttpReranker | None = None,
    ) -> None:
        self.settings = settings
        self.analyzer = analyzer
        self.clock = clock
        self.semantic = semantic
        self.reranker = reranker
        self.memories = MemoryRepository(session)
        self.search = SearchRepository(session)

    async def recall_memories(
        self,
        user_id: str,
        query: str,
        top_k: int = 5,
        *,
        explain: bool = False,
        track: bool = True,
        types: Sequence[str] = (),
        include_superseded: bool = False,
        rerank_mode: RerankMode | None = None,
        min_confidence: float | None = None,
        time_zone: str | None = None,
    ) -> list[RecallHit]:
        """At most ``top_k`` memories for ``query``, best first (seed 002 §5.2): only those
        with query-dependent evidence and at least ``min_confidence`` (default
        RECALL_MIN_CONFIDENCE for a statement, RECALL_MIN_CONFIDENCE_DIALOGUE for a turn
        of a conversation), so possibly fewer. ``rerank_mode`` chooses the reranker's
        mode when one is configured (seed 004). The days a query names ("yesterday",
        「上周五」) are those of ``time_zone``, else of the person's own time zone."""
        check_user_id(user_id)
        zone = check_time_zone(time_zone) if time_zone else None
        if not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}")
        if min_confidence is not None and not 0.0 <= min_confidence <= 1.0:
            raise InvalidInput("min_confidence must be between 0 and 1")
        started = time.perf_counter()
        now = self.clock()
        understood = await self._understand(user_id, query, now, zone) if query.strip() else None
        if understood is not None and understood.searchable:
            current_only = not include_superseded
            hits, lexical = await self._fused(
                user_id,
                query,
                understood,
                (top_k, min_confidence),
                types,
                now,
                current_only,
                rerank_mode,
            )
        else:
            current_only = not include_superseded
            hits, lexical = await self._by_importance(user_id, top_k, types, current_only), None
        if explain:
            # Explained with the scores that ranked it, before this recall counts.
            hits = await self._explain(user_id, hits, understood, lexical)
        if track:
            hits = await self.track_hits(user_id, hits, now)
        RECALL_SECONDS.observe(time.perf_counter() - started)
        RECALL_RESULTS.observe(len(hits))
        return hits

    async def _understand(
        self, user_id: str, query: str, now: datetime, zone: tzinfo | None
    ) -> QueryUnderstanding:
        """The query understood in the person's days: read in UTC first, and only when it
        names a time (most queries do not) in the zone asked for or the person's own
        (one more primary-key read)."""
        understood = await self._analyse(query, now, UTC)
        if understood.time is None:
            return understood
        if zone is None:
            zone = person_zone(await self.memories.time_zone(user_id))
        return understood if zone is UTC else await self._analyse(query, now, zone)

    async def _analyse(self, query: str, now: datetime, zone: tzinfo) -> QueryUnderstanding:
        """The query analysed on the event loop when it is short (a chat turn's question
        takes a fraction of a millisecond, less than a hop to a worker thread and back),
        in a thread when it is long enough to hold other requests up."""
        if len(query) <= INLINE_QUERY_CHARS:
            return understand(query, self.analyzer, now, zone)
        return await asyncio.to_thread(understand, query, self.analyzer, now, zone)

    def counts(self, hit: RecallHit) -> bool:
        """Whether a tracked recall counts this hit: it has evidence of its own (not only
        as a neighbour's context, not an empty query's importance) and a confidence of at
        least RECALL_COUNT_MIN_CONFIDENCE. A hit that does not count is not rescored, so
        it cannot escalate either."""
        return (
            hit.evidence is not None
            and hit.evidence.own
            and hit.confidence is not None
            and hit.confidence >= self.settings.recall_count_min_confidence
        )

    async def track_hits(
        self, user_id: str, hits: list[RecallHit], now: datetime | None = None
    ) -> list[RecallHit]:
        """Count the hits that ``counts`` as recalled; the hits with their rows as the
        count left them (a counted hit whose memory was deleted since it was ranked is
        left out; the others are returned as they were ranked).

        On PostgreSQL this is one statement (MemoryRepository.count_recalls), so the
        caller may run it in autocommit (``Database.one_statement``).
        """
        counted = {h.memory.id for h in hits if self.counts(h)}
        if not counted:
            return hits
        at = self.clock() if now is None else now
        ids = [h.memory.id for h in hits if h.memory.id in counted]
        rows = await self.memories.count_recalls(self.settings, user_id, ids, at)
        if rows is not None:
            for h in hits:
                if h.memory.id in rows:
                    refresh_from_row(h.memory, rows[h.memory.id])
            return [
                dataclasses.replace(h, counted=True) if h.memory.id in rows else h
                for h in hits
                if h.memory.id in rows or h.memory.id not in counted
            ]
        fresh = await self.memories.get_many(user_id, ids)
        return [
            dataclasses.replace(h, memory=fresh[h.memory.id], counted=True)
            if h.memory.id in fresh
            else h
            for h in hits
            if h.memory.id in fresh or h.memory.id not in counted
        ]

    async def mark_used(self, user_id: str, ids: Sequence[int]) -> list[UserMemory]:
        """The frontend's word that its answer used these memories: each counts as
        recalled once (recall_count + 1, rescored), however often the call names it. All
        or nothing: an id that is not one of this user's memories refuses the whole call
        (404 ``memory_not_found`` naming them) and nothing is counted."""
        check_user_id(user_id)
        unique = list(dict.fromkeys(ids))
        if not unique:
            raise InvalidInput("ids: name at least one memory")
        found = await self.memories.get_many(user_id, unique)
        missing = [i for i in unique if i not in found]
        if missing:
            raise MemoryNotFound(*missing)
        rows = await self.memories.count_recalls(self.settings, user_id, unique, self.clock())
        if rows is not None:  # PostgreSQL returns the counted rows: no second read
            for i in rows:
                refresh_from_row(found[i], rows[i])
            return [found[i] for i in unique if i in rows]
        fresh = await self.memories.get_many(user_id, unique)
        return [fresh[i] for i in unique if i in fresh]

    async def track(self, user_id: str, ids: Sequence[int], now: datetime | None = None) -> None:
        """Count ``ids`` as recalled (recall_count + 1) and rescore them: what ``track=True``
        does to every hit, for callers that use only some of them (context assembly)."""
        if not ids:
            return
        at = self.clock() if now is None else now
        await self.memories.count_recalls(self.settings, user_id, ids, at)

    async def _by_importance(
        self, user_id: str, top_k: int, types: Sequence[str], current_only: bool
    ) -> list[RecallHit]:
        # Read past top_k: the assistant's replies are left out (``_candidates``).
        found = await self.memories.top_by_importance(
            user_id, top_k + ASSISTANT_MARGIN, types, current_only=current_only
        )
        rows = [m for m in found if m.role != ASSISTANT][:top_k]
        only = SignalWeights(importance=1.0)
        hits = []
        for m in rows:
            values = {"importance": m.importance_score}
            parts = contributions(values, only)
            hits.append(RecallHit(m, m.importance_score, 0.0, m.importance_score, signals=parts))
        return hits

    async def _fused(
        self,
        user_id: str,
        query: str,
        understood: QueryUnderstanding,
        wanted_hits: tuple[int, float | None],
        types: Sequence[str],
        now: datetime,
        current_only: bool,
        rerank_mode: RerankMode | None = None,
    ) -> tuple[list[RecallHit], _Lexical]:
        """The best ``top_k`` of ``wanted_hits`` = (top_k, min_confidence) with evidence."""
        s = self.settings
        top_k, min_confidence = wanted_hits
        weights = s.recall_weights(understood.intent.type)
        pool = await self._candidates(user_id, query, understood, weights, types, current_only, now)
        # Features are read only where a signal needs them: every candidate's when the
        # query has phrases to look for, else MMR's pool only (services/recall/ranking/phrases.py).
        wanted = weights.phrase > 0 and understood.phrases.total_weight > 0
        phrases = understood.phrases if wanted else None
        table = self._signal_table(pool, understood, phrases, weights, now)
        # Rounded so that equal evidence ties exactly: BM25 summed by the database in
        # another order can differ in the last bit, and a tie goes to the newer memory.
        scores = {
            mid: round(v, SCORE_DIGITS)
            for mid, v in fused_scores(table, weights.model_dump(), pool.rows).items()
        }
        reranked: dict[int, Reranked] = {}
        if self.reranker is not None:
            texts = {mid: m.content for mid, m in pool.rows.items()}
            reranked = await rerank(
                self.reranker, query, scores, texts, s, understood.intent.type.value, rerank_mode
            )
            scores = {mid: r.score for mid, r in reranked.items()} or scores
        pool_terms: dict[int, frozenset[str]] = {}  # MMR asks for each many times

        def terms_of(mid: int) -> frozenset[str]:
            if mid not in pool_terms:
                pool_terms[mid] = text_features(pool.rows[mid].content).terms()
            return pool_terms[mid]

        ordered = mmr_order(
            sorted(scores, key=lambda mid: (-scores[mid], -mid)),
            scores,
            terms_of,
            lam=s.recall_mmr_lambda,
            pool=s.recall_mmr_pool,
            limit=top_k + EVIDENCE_HEAD,
        )
        evidence = await self._evidence(
            user_id, [mid for mid, _ in ordered], pool, understood, table, now
        )
        # The constants with a semantic source were fitted where every similarity had a
        # standing (evals/people: every person's store is past MIN_STORE_FOR_STANDING);
        # without one, their standing feature reads 0, as if nothing stood out. A store
        # too small for a standing is judged by the constants fitted on cosines alone
        # (services/recall/confidence.py SMALL_STORE); one not yet embedded, offline.
        embedded = pool.semantic_on and pool.spread.count > 0
        small = not pool.spread.spread_known
        confident = {
            mid: confidence(e, understood.pure_time, embedded, small_store=small)
            for mid, e in evidence.items()
        }
        floor = {
            mid: min_confidence
            if min_confidence is not None
            else s.recall_min_confidence_dialogue
            if pool.rows[mid].conversation_id is not None
            else s.recall_min_confidence
            for mid in evidence
        }
        ordered = _kept(ordered, evidence, confident, floor)[:top_k]
        # Only the memories returned are loaded whole. One deleted since it was ranked is
        # gone from ``full`` (a reader's statements each see the latest commits on
        # PostgreSQL) and is left out.
        full = await self.memories.get_many(user_id, [mid for mid, _ in ordered])
        hits = [
            RecallHit(
                memory=full[mid],
                score=scores[mid],
                relevance=pool.relevance.get(mid, 0.0),
                importance=pool.rows[mid].importance_score,
                bm25=pool.lexical.bm25.get(mid, 0.0),
                signals=contributions(signal_values(table, mid), weights),
                continuity=pool.continuity.get(mid),
                max_similarity=similarity,
                rerank=reranked.get(mid),
                evidence=evidence[mid],
                confidence=confident[mid],
            )
            for mid, similarity in ordered
            if mid in full
        ]
        return hits, pool.lexical

    async def _candidates(
        self,
        user_id: str,
        query: str,
        understood: QueryUnderstanding,
        weights: SignalWeights,
        types: Sequence[str],
        current_only: bool,
        now: datetime,
    ) -> _Candidates:
        """BM25 candidates, the semantic source's, the strong hits' neighbours, and the
        memories said in the query's day or week or tagged with its feeling."""
        lexical = await self._lexical(user_id, list(understood.terms), weights, types, current_only)
        answered = await self._semantic(user_id, query, weights)
        similar = dict(answered.cosines) if answered is not None else {}
        # The person's own words answer; the assistant's replies are stored as context of
        # a conversation, and one that echoes or suggests something is not what the
        # person said (services/recall/evidence.py): never a candidate.
        rows = {mid: m for mid, m in lexical.rows.items() if m.role != ASSISTANT}
        bm25 = {mid: v for mid, v in lexical.bm25.items() if mid in rows}
        best = max(bm25.values(), default=0.0) or 1.0
        relevance = {mid: v / best for mid, v in bm25.items()}
        # The semantic source knows nothing of superseding: its ids are filtered here.
        rows.update(
            (mid, m)
            for mid, m in (
                await self.memories.sketches(
                    user_id, [mid for mid in similar if mid not in rows], current_only=current_only
                )
            ).items()
            if m.role != ASSISTANT
        )
        similar = {mid: value for mid, value in similar.items() if mid in rows}
        # Each anchor lends its relevance (services/recall/ranking/continuity.py).
        neighbours = [
            n for n in lexical.neighbours if n.anchor_id in relevance and n.sketch.role != ASSISTANT
        ]
        anchors = {n.anchor_id: relevance[n.anchor_id] for n in neighbours}
        decay = self.settings.recall_continuity_decay
        continuity = continuity_values(anchors.items(), neighbours, decay)
        around = {n.memory_id: n.sketch for n in neighbours}
        rows.update((mid, around[mid]) for mid in continuity if mid not in rows)
        if types:  # the semantic source does not filter by type
            rows = {mid: m for mid, m in rows.items() if m.memory_type in types}
        span = understood.time
        if (
            span is not None
            and span.start is not None
            and span.end is not None
            and (span.end - span.start <= timedelta(days=SPAN_CANDIDATES_DAYS))
        ):
            said = await self.memories.said_between(
                user_id,
                span.start,
                span.end,
                self.settings.recall_candidates,
                types=types,
                current_only=current_only,
            )
            rows.update(
                (mid, m) for mid, m in said.items() if mid not in rows and m.role != ASSISTANT
            )
        feelings: dict[int, float] = {}
        if understood.feelings and weights.feeling > 0:
            tagged = await self.memories.feeling_tagged(
                user_id, self.settings.recall_candidates, types=types, current_only=current_only
            )
            for sketch, tags in tagged:
                if sketch.role == ASSISTANT:
                    continue
                if (value := feeling_match(understood.feelings, tags)) > 0:
                    feelings[sketch.id] = value
                    rows.setdefault(sketch.id, sketch)
        scale = self.settings.embedding_similarity_scale
        semantic = relative_to_best([(v, mid) for mid, v in similar.items()], scale)
        spread = answered or Similarities()
        contents = {mid: rows[mid].content for mid in similar if mid in rows}
        across = cross_lingual_values(similar, contents, understood.chinese_share, scale)
        return _Candidates(
            lexical,
            relevance,
            similar,
            continuity,
            rows,
            feelings,
            semantic,
            answered is not None,
            across,
            spread,
        )

    def _signal_table(
        self,
        pool: _Candidates,
        understood: QueryUnderstanding,
        phrases: QueryPhrases | None,
        weights: SignalWeights,
        now: datetime,
    ) -> SignalTable:
        """Every candidate's signal values, a column per signal. A signal this query type
        weighs 0 is left out (it adds nothing and explains as 0), and so is a sparse
        source's column for the candidates it says nothing of. Built a column at a time:
        this runs for every candidate (200) of every recall, and a dict per candidate cost
        about 0.3 ms more per recall at 10k memories."""
        s, rows = self.settings, pool.rows
        table: SignalTable = {
            "lexical": {mid: pool.relevance.get(mid, 0.0) for mid in rows},
            "importance": {mid: m.importance_score for mid, m in rows.items()},
        }
        if pool.semantic:
            table["semantic"] = {mid: v for mid, v in pool.semantic.items() if mid in rows}
        if pool.cross_lingual and weights.cross_lingual > 0:
            table["cross_lingual"] = {
                mid: v for mid, v in pool.cross_lingual.items() if mid in rows
            }
        if pool.continuity:
            table["continuity"] = {
                mid: c.value for mid, c in pool.continuity.items() if mid in rows
            }
        if pool.feelings:
            table["feeling"] = pool.feelings
        if phrases is not None:
            table["phrase"] = {
                mid: phrase_score(phrases, text_features(m.content)) for mid, m in rows.items()
            }
        if weights.temporal > 0 and understood.time is not None:
            time, half_life = understood.time, s.recall_temporal_half_life_days
            table["temporal"] = {
                mid: time.match(m.created_at, half_life) for mid, m in rows.items()
            }
        if weights.recency > 0:
            half_life = s.recall_recency_half_life_days
            table["recency"] = {
                mid: recency((now - m.created_at).total_seconds() / 86400.0, half_life)
                for mid, m in rows.items()
            }
        return table

    async def _evidence(
        self,
        user_id: str,
        ids: list[int],
        pool: _Candidates,
        understood: QueryUnderstanding,
        table: SignalTable,
        now: datetime,
    ) -> dict[int, Evidence]:
        """Each of ``ids``' evidence (services/recall/evidence.py): the query terms it
        holds are read from its postings (a hit scored through the superseded memory it
        replaced holds that memory's). Phrase, time and recency values come from the
        ranking's ``table`` where it has them (a signal the query type weighs 0 has no
        column there, and is computed here)."""
        lexical, s = pool.lexical, self.settings

        def ranked(name: str, mid: int) -> float | None:
            values = table.get(name)
            return values.get(mid) if values is not None else None

        unknown = unknown_term_idf(lexical.documents)
        # A word no memory holds weighs the most; an unheld character bigram or
        # character is left out (the fallbacks help a match, and across a question word
        # such as 「什么时候」 they are noise no memory should be asked to hold).
        query = QueryWeights(
            {
                term: lexical.term_weights.get(term, weight * unknown)
                for term, weight in field_weights(list(understood.terms), s).items()
                if term in lexical.term_weights or term_kind(term) == "word"
            },
            has_time=understood.time is not None,
            has_feeling=bool(understood.feelings),
        )
        scored_as = {mid: lexical.via.get(mid, mid) for mid in ids}
        held: dict[int, set[str]] = {}
        matched = [mid for mid in ids if pool.relevance.get(mid, 0.0) > 0]
        if matched and lexical.term_weights:
            postings = await self.search.postings(
                user_id, sorted({scored_as[mid] for mid in matched}), list(lexical.term_weights)
            )
            for p in postings:
                held.setdefault(p.memory_id, set()).add(p.term)
            for terms in held.values():
                terms.update(spelled_out(understood.terms, terms))
        phrases = understood.phrases if understood.phrases.total_weight > 0 else None
        span = understood.time
        found: dict[int, Evidence] = {}
        for mid in ids:
            m = pool.rows[mid]
            around = pool.continuity.get(mid)
            phrase = ranked("phrase", mid)
            if phrase is None:
                phrase = phrase_score(phrases, text_features(m.content)) if phrases else 0.0
            time_match = ranked("temporal", mid)
            if time_match is None:
                time_match = (
                    span.match(m.created_at, s.recall_temporal_half_life_days)
                    if span is not None
                    else 0.0
                )
            fresh = ranked("recency", mid)
            if fresh is None:
                fresh = recency(
                    (now - m.created_at).total_seconds() / 86400.0,
                    s.recall_recency_half_life_days,
                )
            e = Evidence(
                query,
                terms=tuple(sorted(held.get(scored_as[mid], ()))),
                relevance=pool.relevance.get(mid, 0.0),
                phrase=phrase,
                time=time_match,
                feeling=pool.feelings.get(mid, 0.0),
                semantic=pool.similar.get(mid, 0.0),
                standing=pool.spread.standing(pool.similar[mid]) if mid in pool.similar else None,
                standing_floor=s.recall_semantic_standing,
                across=in_other_language(understood.chinese_share, m.content),
                importance=m.importance_score,
                recency=fresh,
                continuity=around.value if around else 0.0,
            )
            if not e.own and around is not None:
                e = dataclasses.replace(e, context_of=around.anchor_id)
            found[mid] = e
        return found

    async def _lexical(
        self,
        user_id: str,
        terms: list[str],
        weights: SignalWeights,
        types: Sequence[str],
        current_only: bool,
    ) -> _Lexical:
        """BM25's candidates, and the neighbours of the strongest when this query type
        weighs session continuity (seed 004 §4.2)."""
        s = self.settings
        around = None
        if weights.continuity > 0 and s.recall_continuity_radius >= 1:
            around = AroundHits(
                anchors=s.recall_continuity_anchors,
                min_relevance=s.recall_continuity_min_relevance,
                radius=s.recall_continuity_radius,
                window=timedelta(minutes=s.recall_continuity_window_minutes),
            )
        found = await self.search.bm25_search(
            Bm25Query(
                user_id,
                field_weights(terms, s),
                k1=s.bm25_k1,
                b=s.bm25_b,
                limit=s.recall_candidates,
                types=types,
                current_only=current_only,
                around=around,
                term_postings=s.bm25_term_postings_min,
                term_share=s.bm25_term_postings_share,
                successors=s.recall_successors,
            )
        )
        bm25 = {sketch.id: score for score, sketch in found.candidates}
        rows = {sketch.id: sketch for _, sketch in found.candidates}
        via: dict[int, int] = {}
        # The memory that replaced a superseded match answers for it, with its score
        # unless it matched better itself ("where do I live": "I moved to Shanghai"
        # through "I live in Beijing").
        for score, superseded, sketch in found.successors:
            if score > bm25.get(sketch.id, 0.0):
                bm25[sketch.id], rows[sketch.id], via[sketch.id] = score, sketch, superseded
        return _Lexical(
            bm25,
            found.term_weights,
            found.avg_doc_length,
            rows,
            found.neighbours,
            found.term_cutoffs,
            via,
            found.documents,
        )

    async def _semantic(
        self, user_id: str, query: str, weights: SignalWeights
    ) -> Similarities | None:
        """The semantic source's nearest memories; None without one or (and a warning)
        if it fails."""
        if self.semantic is None or weights.semantic <= 0:
            return None
        try:
            return await self.semantic.similar(user_id, query, self.settings.recall_candidates)
        except EmbeddingBusy:
            raise  # the caller's own flood: a 429 it can act on, not a quieter recall
        except Exception as exc:  # any provider failure degrades to the other signals
            log.warning("semantic source failed, recalling without it: %s", exc)
            return None

    async def _explain(
        self,
        user_id: str,
        hits: list[RecallHit],
        understood: QueryUnderstanding | None,
        lexical: _Lexical | None,
    ) -> list[RecallHit]:
        if lexical is None or understood is None:
            return [
                dataclasses.replace(h, explanation=explain_importance_only(h, self.settings))
                for h in hits
            ]
        # A hit scored through a superseded match is explained by that match's terms.
        scored_as = {h.memory.id: lexical.via.get(h.memory.id, h.memory.id) for h in hits}
        postings = await self.search.postings(
            user_id, sorted(set(scored_as.values())), list(lexical.term_weights)
        )
        return [
            dataclasses.replace(
                h,
                explanation=explain_fused(
                    h,
                    understood,
                    [p for p in postings if p.memory_id == scored_as[h.memory.id]],
                    lexical.term_weights,
                    lexical.avg_doc_length,
                    self.settings,
                    lexical.term_cutoffs,
                    lexical.via.get(h.memory.id),
                ),
            )
            for h in hits
        ]


def _kept(
    ordered: list[tuple[int, float]],
    evidence: dict[int, Evidence],
    confident: dict[int, float],
    floor: dict[int, float],
) -> list[tuple[int, float]]:
    """The hits worth returning, in order: those with evidence of their own and at least
    their ``floor`` of confidence, and the context of such a hit (its neighbours in its
    conversation) when its own confidence, as context, reaches the floor too: it comes and
    goes with its anchor and follows it, never ranking above the hit it is context of.
    One policy for statements and turns alike: a neighbour is not let through for being
    a neighbour (with the dialogue floor of 0.1 nearly every neighbour was)."""
    own = {mid for mid, _ in ordered if evidence[mid].own and confident[mid] >= floor[mid]}
    context: dict[int, list[tuple[int, float]]] = {}
    for mid, similarity in ordered:
        anchor = evidence[mid].context_of
        if mid not in own and anchor in own and confident[mid] >= floor[mid]:
            context.setdefault(anchor, []).append((mid, similarity))
    kept: list[tuple[int, float]] = []
    for mid, similarity in ordered:
        if mid in own:
            kept.append((mid, similarity))
            kept.extend(context.get(mid, ()))
    return kept
