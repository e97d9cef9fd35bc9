"""Lexical relevance: BM25 over jieba tokens and CJK bigrams, with per-user statistics.

score(q, d) = Σ_t w_t · idf_t · tf_{t,d} · (k1 + 1) / (tf_{t,d} + k1 · (1 − b + b · |d| / avgdl))

with idf_t = ln(1 + (N − df_t + 0.5) / (df_t + 0.5)) (the non-negative Lucene form),
N and avgdl from the user's own memories, and w_t = 1 for words ``bigram_weight``
(0.5) for the character-bigram fallback and ``char_weight`` (0.3) for single characters:
the fallbacks should help, never outvote a word.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from services.core.settings import Settings
from services.text.analysis import term_kind


def idf(document_frequency: int, documents: int) -> float:
    """Lucene's BM25 idf, never negative: the reference for the one the BM25 statement
    computes (services/repositories/statements/bm25_sql.py)."""
    return math.log(1.0 + (documents - document_frequency + 0.5) / (document_frequency + 0.5))


def field_weights(terms: Iterable[str], settings: Settings) -> dict[str, float]:
    """Each query term's field weight (its w_t before idf), without repeats."""
    by_kind = {"word": 1.0, "bigram": settings.bigram_weight, "char": settings.char_weight}
    return {term: by_kind[term_kind(term)] for term in terms}


@dataclass(frozen=True)
class TermContribution:
    """One term's share of a memory's BM25 score, for explanations."""

    term: str
    kind: str
    tf: int
    weight: float
    contribution: float


def term_contribution(
    term: str, weight: float, tf: int, doc_length: int, avg_doc_length: float, settings: Settings
) -> TermContribution:
    """The same per-term BM25 part that the database sums in ``bm25_candidates``."""
    k1, b = settings.bm25_k1, settings.bm25_b
    norm = k1 * (1.0 - b + b * doc_length / max(avg_doc_length, 1e-9))
    return TermContribution(
        term=term,
        kind=term_kind(term),
        tf=tf,
        weight=weight,
        contribution=weight * tf * (k1 + 1.0) / (tf + norm),
    )
