"""The reference point: plain BM25 over naive tokens, in memory, in pure Python.

No stemming, no stopwords, no jieba and no importance: a turn's tokens are its lowercased
runs of letters and digits. Scoring is Okapi BM25,

    score(q, d) = Σ_{t ∈ q} idf_t · tf_{t,d} · (k1 + 1) / (tf_{t,d} + k1 · (1 − b + b · |d|/avgdl))

with idf_t = ln(1 + (N − df_t + 0.5) / (df_t + 0.5)) (the non-negative Lucene form, the same
idf the service uses), k1 = 1.2 and b = 0.75. The sum runs over the query's token list, so
a word the question repeats counts again (as in the common ``rank_bm25`` implementation).
Only turns sharing at least one token with the question are ranked; ties go to the earlier
turn.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_TOKEN = re.compile(r"[^\W_]+")

DEFAULT_K1 = 1.2
DEFAULT_B = 0.75


def naive_tokens(text: str) -> list[str]:
    """Lowercase, split on every non-alphanumeric character (apostrophes and "_" too)."""
    return _TOKEN.findall(text.lower())


class NaiveBM25:
    """An in-memory BM25 index over a fixed list of documents."""

    def __init__(self, documents: Sequence[str], k1: float = DEFAULT_K1, b: float = DEFAULT_B):
        self.k1 = k1
        self.b = b
        self.term_counts = [Counter(naive_tokens(d)) for d in documents]
        self.lengths = [sum(c.values()) for c in self.term_counts]
        self.avgdl = sum(self.lengths) / len(self.lengths) if self.lengths else 0.0
        self.postings: dict[str, list[int]] = {}
        for index, counts in enumerate(self.term_counts):
            for term in counts:
                self.postings.setdefault(term, []).append(index)
        n = len(self.term_counts)
        self.idf = {
            term: math.log(1.0 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
            for term, docs in self.postings.items()
        }

    def scores(self, query: str) -> dict[int, float]:
        """BM25 of every document that shares a token with ``query``."""
        k1, b = self.k1, self.b
        avgdl = max(self.avgdl, 1e-9)
        scores: dict[int, float] = {}
        for term in naive_tokens(query):
            for index in self.postings.get(term, ()):
                tf = self.term_counts[index][term]
                norm = k1 * (1.0 - b + b * self.lengths[index] / avgdl)
                part = self.idf[term] * tf * (k1 + 1.0) / (tf + norm)
                scores[index] = scores.get(index, 0.0) + part
        return scores

    def rank(self, query: str, top_k: int) -> list[int]:
        """Indices of the ``top_k`` best documents, best first (earlier document on ties)."""
        scores = self.scores(query)
        return sorted(scores, key=lambda i: (-scores[i], i))[:top_k]
