"""What one tenant says, in order, and what the service makes of it (before any SQL).

A plan is a list of statements (the exact input of ``MemoryService.add_many``) with
their analyses, and for each statement whether it creates a memory or merges into an
earlier one. The service merges a statement into an earlier memory when the normalised
content hash matches (planned here: the generator repeats statements word for word) or
when the Jaccard similarity of the index-term sets is ≥ ``near_duplicate_threshold``.
The generator avoids the second case by construction only statistically, so the planner
drops every statement that comes that close to an earlier memory; what is left merges
exactly where the service would, and nowhere else.

Near duplicates are found exactly with prefix filtering: with the terms of every set
sorted in one global order (rarest first), two sets with Jaccard ≥ t share a term among
their first ``|A| − ⌈t·|A|⌉ + 1`` terms, so only sets meeting in a prefix are compared
(and of those, only the ones the size and position filters of ``NearDuplicateFilter``
leave).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from bench.data import Generator
from services.core.settings import Settings
from services.core.validation import check_content
from services.text.analysis import AnalyzedText, TextAnalyzer, jaccard

HISTORY_DAYS = 365
SOURCE = "chat"
METADATA = {"from": "bench"}


@dataclass(frozen=True)
class Statement:
    """One thing a user says: what MemoryService.add receives."""

    content: str
    memory_type: str
    created_at: datetime


@dataclass
class Plan:
    """A tenant's statements in order; ``memory_of[i]`` is the memory statement i is.

    Memories are numbered 0.. in creation order; ``creates[i]`` is True for the statement
    that creates memory ``memory_of[i]`` and False for a repeat (a merge).
    """

    statements: list[Statement] = field(default_factory=list)
    analyses: list[AnalyzedText] = field(default_factory=list)
    memory_of: list[int] = field(default_factory=list)
    creates: list[bool] = field(default_factory=list)
    memories: int = 0
    dropped_near_duplicates: int = 0


class NearDuplicateFilter:
    """Exact detection of a term set with Jaccard ≥ ``threshold`` to any set added before.

    Prefix, size and position filters (after PPJoin: Xiao et al., "Efficient similarity
    joins for near duplicate detection", WWW 2008). Two sets with Jaccard ≥ t overlap in
    at least ``α = ⌈t / (1 + t) · (|A| + |B|)⌉`` terms, and their first common term (in
    the global order) stands at positions i in A and j in B with ``|A| − i ≥ α`` and
    ``|B| − j ≥ α``: every common term comes at or after it. So the index keeps each
    prefix term's position, bucketed by set size, and a lookup reads only the sizes in
    ``[t·|A|, |A|/t]`` and, in each, only the positions that leave room for α. At
    t = 0.85 that is mostly position 0. The plain prefix filter compared each new set
    with ~140 earlier ones at 30k memories, and planning the 100k tenant grew
    quadratically. Every candidate is still checked with the exact Jaccard.
    """

    def __init__(self, threshold: float, order: Counter[str]) -> None:
        self.threshold = threshold
        self.order = order  # how common each term is: rarer terms go first
        self.sets: list[frozenset[str]] = []
        # term -> size of the indexed set -> position of the term in it -> set indexes
        self.by_prefix: dict[str, dict[int, list[list[int]]]] = {}

    def _ranked(self, terms: frozenset[str]) -> list[str]:
        return sorted(terms, key=lambda t: (self.order[t], t))

    def _prefix_length(self, size: int) -> int:
        # int() floors t·|A|, so the prefix is never shorter than the exact bound.
        return size - int(self.threshold * size) + 1

    def _required_overlap(self, size: int, other: int) -> int:
        """Least |A ∩ B| with |A ∩ B| / (|A| + |B| − |A ∩ B|) ≥ t."""
        bound = self.threshold / (1 + self.threshold) * (size + other)
        # Rounding down a hair keeps a bound that is whole in exact arithmetic whole;
        # a bound one too low only lets a candidate through to the exact check.
        return math.ceil(bound - 1e-9)

    def _candidates(self, ranked: list[str]) -> set[int]:
        size = len(ranked)
        low, high = self.threshold * size, size / self.threshold
        found: set[int] = set()
        for position, term in enumerate(ranked[: self._prefix_length(size)]):
            for other_size, by_position in self.by_prefix.get(term, {}).items():
                if not low <= other_size <= high:
                    continue
                needed = self._required_overlap(size, other_size)
                if size - position < needed:
                    continue
                for indexes in by_position[: other_size - needed + 1]:
                    found.update(indexes)
        return found

    def is_near_duplicate(self, terms: frozenset[str]) -> bool:
        """True when an earlier set is at least ``threshold`` similar to ``terms``."""
        return any(
            jaccard(terms, self.sets[index]) >= self.threshold
            for index in self._candidates(self._ranked(terms))
        )

    def add(self, terms: frozenset[str]) -> None:
        """Remember a kept set."""
        index = len(self.sets)
        self.sets.append(terms)
        ranked = self._ranked(terms)
        size = len(ranked)
        for position, term in enumerate(ranked[: self._prefix_length(size)]):
            by_position = self.by_prefix.setdefault(term, {}).setdefault(size, [])
            by_position.extend([] for _ in range(position + 1 - len(by_position)))
            by_position[position].append(index)


def _chunks(
    generator: Generator, analyzer: TextAnalyzer, size: int
) -> Iterator[list[tuple[str, str, AnalyzedText]]]:
    stream = generator.stream()
    while True:
        batch = [(check_content(c), t) for c, t in itertools.islice(stream, size)]
        yield [(c, t, analyzer.analyze(c)) for c, t in batch]


def plan_tenant(
    seed: int, memories: int, analyzer: TextAnalyzer, settings: Settings, now: datetime
) -> Plan:
    """Statements for a tenant that ends with exactly ``memories`` memories.

    Statements are spread evenly over the ``HISTORY_DAYS`` before ``now`` (oldest first).
    """
    plan = Plan()
    by_hash: dict[str, int] = {}
    kept: list[tuple[str, str, AnalyzedText]] = []
    chunks = _chunks(Generator(seed), analyzer, max(64, memories + memories // 10))
    near: NearDuplicateFilter | None = None
    while plan.memories < memories:
        chunk = next(chunks)
        if near is None:
            # One fixed global order for the whole tenant: term counts in the first chunk.
            near = NearDuplicateFilter(
                settings.near_duplicate_threshold,
                Counter(t for _, _, a in chunk for t in a.terms),
            )
        for content, memory_type, analysis in chunk:
            if analysis.content_hash in by_hash:
                kept.append((content, memory_type, analysis))
                plan.memory_of.append(by_hash[analysis.content_hash])
                plan.creates.append(False)
                continue
            terms = frozenset(analysis.terms)
            if near.is_near_duplicate(terms):
                plan.dropped_near_duplicates += 1
                continue
            near.add(terms)
            by_hash[analysis.content_hash] = plan.memories
            kept.append((content, memory_type, analysis))
            plan.memory_of.append(plan.memories)
            plan.creates.append(True)
            plan.memories += 1
            if plan.memories == memories:
                break
    step = timedelta(days=HISTORY_DAYS) / max(len(kept), 1)
    start = now - timedelta(days=HISTORY_DAYS)
    for i, (content, memory_type, analysis) in enumerate(kept):
        plan.statements.append(Statement(content, memory_type, start + step * i))
        plan.analyses.append(analysis)
    return plan
