"""Near-duplicate search with a known worst case: prefix filter, length filter, a cap on
candidates per text and a budget on character alignment (seed 002 §3.1 merges).

A new text A is a near-duplicate of B only if the Jaccard similarity of their term sets
reaches t (``near_duplicate_threshold``). Then |A ∩ B| ≥ t·|A ∪ B| ≥ t·|A|, so B lacks
at most m = ⌊(1 − t)·|A|⌋ of A's terms, and any k = m + r terms of A include at least r
terms of B. Looking up the postings of k chosen terms and keeping the memories that hold
r of them therefore finds every near-duplicate, whichever k terms are chosen; choosing
the rarest ones keeps the posting lists short. The same inequality bounds B's size:
t·|A| ≤ |B| ≤ |A|/t (the length filter). The candidates are then verified with the full
Jaccard and the character-order similarity (difflib's ratio).

What bounds the cost (a batch of 1,000 items that reorder the same 40 words
took 150 s, every pair aligned on the event loop): at most ``NEAR_DUPLICATE_CANDIDATES``
candidates per text are verified, the ones holding most probe terms (then the newest),
as the stored memories always were; difflib's two upper bounds (lengths, then character
counts) reject most pairs in linear time; and a batch aligns at most
``ALIGNMENT_BUDGET`` character pairs in all. A pair past the budget counts as distinct:
only a batch built to defeat every filter gets there, and its texts are then stored
as they are (an exact repeat still merges by its hash).
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Collection, Hashable, Mapping
from collections.abc import Set as AbstractSet
from difflib import SequenceMatcher

from services.text.analysis import term_kind

# r above is max(PROBE_MIN_HITS, PROBE_HIT_SHARE · |A|): a larger r means more probe
# terms to look up (rare ones, so short posting lists) but far fewer candidates to verify.
PROBE_MIN_HITS = 3
PROBE_HIT_SHARE = 0.25
_NONE: frozenset[int] = frozenset()
_KIND_RANK = {"word": 0, "bigram": 1, "char": 2}
# Verified candidates per new text, most probe terms first (a true near-duplicate holds
# nearly all of them, so it ranks at the top).
NEAR_DUPLICATE_CANDIDATES = 20
# Character pairs a batch may align, counted as (len(a) + PAD)·(len(b) + PAD) per pair
# (difflib's work grows with the product of the lengths; PAD stands for its per-call
# cost). 3·10^8 is some 1,500 alignments of 250-character texts or 4 of 8,000
# characters, about a second of one core. An ordinary batch aligns a few pairs.
ALIGNMENT_BUDGET = 3 * 10**8
ALIGNMENT_PAD = 200


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


def held_counts(
    probe: tuple[list[str], int], holders: Mapping[str, AbstractSet[int]]
) -> Counter[int]:
    """How many probe terms each key holds, for every key holding at least one of the
    rarest k - need + 1 (the only keys that can hold ``need``).

    A key holding ``need`` of the k probe terms holds one of any k - need + 1 of them,
    so the rarest k - need + 1 give every candidate; the other terms only add to the
    counts of those candidates (set intersections and Counter updates, all in C: per
    candidate membership tests were most of a batch's duplicate search).
    """
    terms, need = probe
    split = len(terms) - need + 1
    held: Counter[int] = Counter()
    for term in terms[:split]:
        held.update(holders.get(term, _NONE))
    candidates = set(held)
    for term in terms[split:]:
        held.update(holders.get(term, _NONE) & candidates)
    return held


def most_held(probe: tuple[list[str], int], holders: Mapping[str, AbstractSet[int]]) -> list[int]:
    """The keys holding at least ``need`` probe terms, most held first (then newest)."""
    held, need = held_counts(probe, holders), probe[1]
    return sorted((i for i, n in held.items() if n >= need), key=lambda i: (-held[i], -i))


def size_fits(size: int, other: int, threshold: float) -> bool:
    """Whether two term sets of these sizes can reach Jaccard ``threshold`` at all."""
    return threshold * size <= other + 1e-9 and threshold * other <= size + 1e-9


class TermSetIndex:
    """An in-memory inverted index over term sets, for near-duplicates inside one batch.

    ``frequencies`` (how many texts of the batch hold each term) put the rarest probe
    terms first, so a term every text holds is looked up only when it must be.
    """

    def __init__(self, threshold: float, frequencies: Mapping[str, int] | None = None) -> None:
        self.threshold = threshold
        self.frequencies = frequencies
        self.postings: dict[str, set[int]] = {}
        self.sizes: dict[int, int] = {}

    def candidates(self, terms: Collection[str], limit: int | None = None) -> list[int]:
        """Keys of the indexed sets that may be near-duplicates of ``terms``, best first
        (most probe terms held, then newest), at most ``limit``."""
        size = len(set(terms))
        need = (found := probe(terms, self.threshold, self.frequencies))[1]
        held = held_counts(found, self.postings)
        # The length filter as integer bounds: t·|A| <= |B| <= |A|/t.
        low = math.ceil(self.threshold * size - 1e-9)
        high = math.floor(size / self.threshold + 1e-9) if self.threshold else size
        fitting = (k for k, n in held.items() if n >= need and low <= self.sizes[k] <= high)
        order = lambda k: (-held[k], -k)  # noqa: E731
        if limit is None:
            return sorted(fitting, key=order)
        return heapq.nsmallest(limit, fitting, key=order)

    def add(self, key: int, terms: Collection[str]) -> None:
        """Index a set under ``key``."""
        unique = set(terms)
        self.sizes[key] = len(unique)
        for term in unique:
            self.postings.setdefault(term, set()).add(key)


class Alignment:
    """difflib's ratio for the candidates of one batch, within ``ALIGNMENT_BUDGET``.

    ``ratio(text, key, other)`` equals ``SequenceMatcher(None, text, other).ratio()``
    whenever it can reach ``threshold``, and is 0.0 when it cannot (or when the budget
    is spent). ``other`` is analysed once per ``key`` (difflib caches its second
    sequence), so a text compared with many others costs one analysis of each.
    """

    def __init__(self, threshold: float, budget: int = ALIGNMENT_BUDGET) -> None:
        self.threshold = threshold
        self.budget = budget
        self.aligned = 0  # pairs aligned
        self.skipped = 0  # pairs the budget left unaligned
        self._others: dict[Hashable, tuple[SequenceMatcher[str], Counter[str]]] = {}
        self._text = ""
        self._counts: Counter[str] = Counter()

    def ratio(self, text: str, key: Hashable, other: str) -> float:
        """The character-order similarity of ``text`` and ``other`` (both normalized)."""
        total = len(text) + len(other)
        # difflib's two upper bounds of ratio(), lengths alone and then character counts
        # (its quick_ratio, computed from cached Counters: difflib's own loops over every
        # character in Python and was most of the time on a batch of reordered words).
        if not total or 2 * min(len(text), len(other)) < self.threshold * total:
            return 0.0
        matcher, counts = self._other(key, other)
        if text is not self._text:
            self._text, self._counts = text, Counter(text)
        common = sum(min(n, counts[c]) for c, n in self._counts.items() if c in counts)
        if 2 * common < self.threshold * total:
            return 0.0
        cost = (len(text) + ALIGNMENT_PAD) * (len(other) + ALIGNMENT_PAD)
        if cost > self.budget:
            self.skipped += 1
            return 0.0
        self.budget -= cost
        self.aligned += 1
        matcher.set_seq1(text)
        return matcher.ratio()

    def _other(self, key: Hashable, other: str) -> tuple[SequenceMatcher[str], Counter[str]]:
        cached = self._others.get(key)
        if cached is None:
            cached = self._others[key] = (SequenceMatcher(None, "", other), Counter(other))
        return cached
