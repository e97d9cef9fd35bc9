"""Recall: rank a user's memories by a blend of query relevance and importance.

final = recall_relevance_weight · relevance + recall_importance_weight · importance
      = 0.7 · relevance + 0.3 · importance (defaults, in settings)

relevance is the memory's BM25 score divided by the best BM25 score among the
candidates, so the best lexical match has relevance 1 and the blend compares like with
like; importance is the stored score the scheduled job keeps fresh. Candidates are the
``recall_candidates`` best BM25 matches, ranked inside the database from the per-user
inverted index: recall never loads a user's other memories. An empty query (or one with
no searchable words) returns the most important memories.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from models import UserMemory
from services.analysis import TextAnalyzer
from services.clock import Clock
from services.errors import InvalidInput
from services.frequency import FrequencyTracker
from services.relevance import term_contribution, term_weights
from services.repositories.memories import MemoryRepository
from services.repositories.search import SearchRepository
from services.settings import Settings
from services.validation import MAX_TOP_K, check_user_id


@dataclass(frozen=True)
class RecallHit:
    """One recalled memory with the numbers behind its rank."""

    memory: UserMemory
    score: float
    relevance: float
    importance: float
    bm25: float = 0.0
    explanation: dict[str, Any] | None = None


class RecallService:
    """Ranks, tracks and explains recalls for one session."""

    def __init__(
        self, session: AsyncSession, settings: Settings, analyzer: TextAnalyzer, clock: Clock
    ) -> None:
        self.settings = settings
        self.analyzer = analyzer
        self.clock = clock
        self.memories = MemoryRepository(session)
        self.search = SearchRepository(session)
        self.frequency = FrequencyTracker(self.memories, self.search, settings)

    async def recall_memories(
        self,
        user_id: str,
        query: str,
        top_k: int = 5,
        *,
        explain: bool = False,
        track: bool = True,
        types: Sequence[str] = (),
    ) -> list[RecallHit]:
        """The ``top_k`` best memories for ``query``, best first (seed 002 §5.2)."""
        check_user_id(user_id)
        if not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInput(f"top_k must be between 1 and {MAX_TOP_K}")
        terms = await asyncio.to_thread(self.analyzer.query_terms, query) if query.strip() else None
        if terms:
            hits, weights, avgdl = await self._lexical(user_id, list(terms), top_k, types)
        else:
            hits, weights, avgdl = await self._by_importance(user_id, top_k, types), {}, 0.0
        if explain:
            # Explained with the scores that ranked it, before this recall counts.
            hits = await self._explain(user_id, hits, weights, avgdl)
        if track and hits:
            now = self.clock()
            ids = [h.memory.id for h in hits]
            await self.frequency.record_recalls(user_id, ids, now)
            await self.memories.rescore(self.settings, now, user_id, ids, "recall")
            fresh = await self.memories.get_many(user_id, ids)
            hits = [dataclasses.replace(h, memory=fresh[h.memory.id]) for h in hits]
        return hits

    async def _by_importance(
        self, user_id: str, top_k: int, types: Sequence[str]
    ) -> list[RecallHit]:
        rows = await self.memories.top_by_importance(user_id, top_k, types)
        w = self.settings.recall_importance_weight
        return [RecallHit(m, w * m.importance_score, 0.0, m.importance_score) for m in rows]

    async def _lexical(
        self, user_id: str, terms: list[str], top_k: int, types: Sequence[str]
    ) -> tuple[list[RecallHit], dict[str, float], float]:
        s = self.settings
        stats = await self.memories.user_stats(user_id)
        if stats is None or stats.memory_count <= 0:
            return [], {}, 0.0
        avgdl = stats.total_doc_length / stats.memory_count
        weights = term_weights(
            await self.search.document_frequencies(user_id, terms), int(stats.memory_count), s
        )
        found = await self.search.bm25_candidates(
            user_id,
            weights,
            k1=s.bm25_k1,
            b=s.bm25_b,
            avg_doc_length=avgdl,
            limit=s.recall_candidates,
            types=types,
        )
        if not found:
            return [], weights, avgdl
        best = found[0][1] or 1.0
        rows = await self.memories.get_many(user_id, [mid for mid, _ in found])
        hits = [
            RecallHit(
                memory=rows[mid],
                score=s.recall_relevance_weight * (bm25 / best)
                + s.recall_importance_weight * rows[mid].importance_score,
                relevance=bm25 / best,
                importance=rows[mid].importance_score,
                bm25=bm25,
            )
            for mid, bm25 in found
            if mid in rows
        ]
        hits.sort(key=lambda h: (-h.score, -h.memory.id))
        return hits[:top_k], weights, avgdl

    async def _explain(
        self, user_id: str, hits: list[RecallHit], weights: dict[str, float], avgdl: float
    ) -> list[RecallHit]:
        s = self.settings
        postings = await self.search.postings(user_id, [h.memory.id for h in hits], list(weights))
        by_memory: dict[int, list[dict[str, Any]]] = {}
        for p in postings:
            c = term_contribution(p.term, weights[p.term], p.tf, p.doc_length, avgdl, s)
            by_memory.setdefault(p.memory_id, []).append(
                {
                    "term": c.term,
                    "kind": c.kind,
                    "tf": c.tf,
                    "idf_weight": c.weight,
                    "contribution": c.contribution,
                }
            )
        explained = []
        for h in hits:
            m = h.memory
            terms = sorted(by_memory.get(m.id, []), key=lambda t: -float(t["contribution"]))
            components = {
                "frequency": (m.frequency_score, s.weight_frequency),
                "recency": (m.recency_score, s.weight_recency),
                "emotion": (m.emotion_score, s.weight_emotion),
                "impact": (m.impact_score, s.weight_impact),
            }
            explanation = {
                "mode": "lexical" if weights else "importance_only",
                "score": h.score,
                "relevance": {
                    "bm25": h.bm25,
                    "normalized": h.relevance,
                    "weight": s.recall_relevance_weight if weights else 0.0,
                    "contribution": (s.recall_relevance_weight if weights else 0.0) * h.relevance,
                    "matched_terms": terms,
                },
                "importance": {
                    "score": h.importance,
                    "level": m.importance_level,
                    "weight": s.recall_importance_weight,
                    "contribution": s.recall_importance_weight * h.importance,
                    "components": {
                        name: {"value": value, "weight": weight, "contribution": value * weight}
                        for name, (value, weight) in components.items()
                    },
                },
            }
            explained.append(dataclasses.replace(h, explanation=explanation))
        return explained
