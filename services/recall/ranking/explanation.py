"""``explain=true``: every signal's value, weight and contribution, and why it has that value.

The signal contributions add up to the hit's score; when a reranker rescored the recall
they add up to ``rerank.hybrid_score`` and the ``rerank`` section's two contributions add
up to the score (services/recall/ranking/rerank.py). The ``relevance`` and ``importance``
sections keep the per-term BM25 breakdown and the four importance components (seed 002).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from services.core.settings import Settings
from services.recall.ranking.understanding import QueryUnderstanding
from services.recall.relevance import term_contribution
from services.repositories.search import Posting

if TYPE_CHECKING:
    from services.recall.recall_service import RecallHit


def _signals(hit: RecallHit) -> dict[str, dict[str, float]]:
    return {
        name: {"value": c.value, "weight": c.weight, "contribution": c.contribution}
        for name, c in hit.signals.items()
    }


def _importance(hit: RecallHit, settings: Settings) -> dict[str, Any]:
    m, s = hit.memory, settings
    components = {
        "frequency": (m.frequency_score, s.weight_frequency),
        "recency": (m.recency_score, s.weight_recency),
        "emotion": (m.emotion_score, s.weight_emotion),
        "impact": (m.impact_score, s.weight_impact),
    }
    part = hit.signals.get("importance")
    weight = part.weight if part else 0.0
    return {
        "score": hit.importance,
        "level": m.importance_level,
        "weight": weight,
        "contribution": weight * hit.importance,
        "components": {
            name: {"value": value, "weight": w, "contribution": value * w}
            for name, (value, w) in components.items()
        },
    }


def explain_importance_only(hit: RecallHit, settings: Settings) -> dict[str, Any]:
    """An empty query: the score is the importance."""
    return {
        "mode": "importance_only",
        "query_type": None,
        "query_type_cue": None,
        "time_expression": None,
        "score": hit.score,
        "signals": _signals(hit),
        "relevance": {
            "bm25": 0.0,
            "normalized": 0.0,
            "weight": 0.0,
            "contribution": 0.0,
            "matched_terms": [],
            "superseded_match": None,
        },
        "importance": _importance(hit, settings),
        "continuity": None,
        "diversity": None,
    }


def explain_fused(
    hit: RecallHit,
    understood: QueryUnderstanding,
    postings: Sequence[Posting],
    term_weights: Mapping[str, float],
    avg_doc_length: float,
    settings: Settings,
    term_cutoffs: Mapping[str, int],
    superseded_match: int | None,
) -> dict[str, Any]:
    """A ranked hit: query type, time expression, every signal, terms and components.

    A term read only up to a document length (``term_cutoffs``, bm25_sql.py) adds
    nothing to a longer memory: it shows with ``beyond_cutoff`` and a contribution of 0,
    so the terms' contributions still add up to ``bm25``.

    A hit scored through the superseded memory it replaced (``superseded_match``, its
    id) shows that memory's id, and ``postings`` are that memory's: its terms add up to
    the hit's ``bm25``.
    """
    terms: list[dict[str, Any]] = []
    for p in postings:
        c = term_contribution(
            p.term, term_weights[p.term], p.tf, p.doc_length, avg_doc_length, settings
        )
        beyond = p.term in term_cutoffs and p.doc_length > term_cutoffs[p.term]
        terms.append(
            {
                "term": c.term,
                "kind": c.kind,
                "tf": c.tf,
                "idf_weight": c.weight,
                "contribution": 0.0 if beyond else c.contribution,
                "beyond_cutoff": beyond,
            }
        )
    terms.sort(key=lambda t: -float(t["contribution"]))
    lexical = hit.signals["lexical"]
    continuity = hit.continuity
    return {
        "mode": "fused",
        "query_type": understood.intent.type.value,
        "query_type_cue": understood.intent.cue,
        "time_expression": understood.time.describe() if understood.time else None,
        "score": hit.score,
        "signals": _signals(hit),
        "relevance": {
            "bm25": hit.bm25,
            "normalized": hit.relevance,
            "weight": lexical.weight,
            "contribution": lexical.contribution,
            "matched_terms": terms,
            "superseded_match": superseded_match,
        },
        "importance": _importance(hit, settings),
        "continuity": (
            {"anchor_id": continuity.anchor_id, "distance": continuity.distance}
            if continuity
            else None
        ),
        "diversity": {
            "lambda": settings.recall_mmr_lambda,
            "max_similarity_to_earlier": hit.max_similarity,
        },
        "rerank": _rerank(hit),
    }


def _rerank(hit: RecallHit) -> dict[str, float | str] | None:
    """The reranker's part: ``score = contribution + hybrid_contribution`` (seed 004 §1)."""
    r = hit.rerank
    if r is None:
        return None
    return {
        "relevance": r.relevance,
        "weight": r.weight,
        "contribution": r.weight * r.relevance,
        "hybrid_score": r.hybrid,
        "hybrid_normalized": r.hybrid_normalized,
        "hybrid_weight": 1.0 - r.weight,
        "hybrid_contribution": (1.0 - r.weight) * r.hybrid_normalized,
        "mode": r.mode,
    }
