"""Exact candidate search for near-duplicates by prefix filtering (seed 002 §3.1 merges).

A new text A is a near-duplicate of B only if the Jaccard similarity of their term sets
reaches t (``near_duplicate_threshold``). Then |A ∩ B| ≥ t·|A ∪ B| ≥ t·|A|, so B lacks
at most m = ⌊(1 − t)·|A|⌋ of A's terms, and any k = m + r terms of A include at least r
terms of B. Looking up the postings of k chosen terms and keeping the memories that hold
r of them therefore finds every near-duplicate, whichever k terms are chosen; choosing
the rarest-looking ones (long words, then character bigrams, then single characters)
keeps the posting lists short without a document-frequency lookup. The candidates are
then verified with the full Jaccard and the character-order similarity.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping

from services.text.analysis import term_kind

# r above is max(PROBE_MIN_HITS, PROBE_HIT_SHARE · |A|): a larger r means more probe
# terms to look up (rare ones, so short posting lists) but far fewer candidates to verify.
PROBE_MIN_HITS = 3
PROBE_HIT_SHARE = 0.25
_KIND_RANK = {"word": 0, "bigram": 1, "char": 2}


def rarity_key(term: str) -> tuple[int, int, str]:
    """Sort key putting the terms least likely to be common first."""
    return (_KIND_RANK[term_kind(term)], -len(term), term)


def probe(
    terms: Collection[str], threshold: float, frequencies: Mapping[str, int] | None = None
) -> tuple[list[str], int]:
    """The probe terms of a term set and how many of them a near-duplicate must hold.

    With the user's document ``frequencies`` the truly rarest terms go first (a term no
    memory holds costs nothing to look up); without them, the rarest-looking ones.
    """
    df = frequencies or {}
    ranked = sorted(set(terms), key=lambda t: (df.get(t, 0), rarity_key(t)))
    # The epsilon keeps float error from rounding m down, which would miss candidates.
    missing = math.floor((1.0 - threshold) * len(ranked) + 1e-9)
    hits = max(PROBE_MIN_HITS, math.ceil(PROBE_HIT_SHARE * len(ranked)))
    size = min(len(ranked), missing + hits)
    return ranked[:size], max(size - missing, 1)


class TermSetIndex:
    """An in-memory inverted index over term sets, for near-duplicates inside one batch."""

    def __init__(self, threshold: float) -> None:
        self.threshold = threshold
        self.postings: dict[str, list[int]] = {}

    def candidates(self, terms: Collection[str]) -> list[int]:
        """Keys of the indexed sets that may be near-duplicates of ``terms``."""
        probe_terms, need = probe(terms, self.threshold)
        hits: Counter[int] = Counter()
        for term in probe_terms:
            hits.update(self.postings.get(term, ()))
        return [key for key, count in hits.items() if count >= need]

    def add(self, key: int, terms: Collection[str]) -> None:
        """Index a set under ``key``."""
        for term in set(terms):
            self.postings.setdefault(term, []).append(key)
