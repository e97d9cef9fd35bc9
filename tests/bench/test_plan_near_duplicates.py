"""The planner's near-duplicate filter finds exactly the sets a pairwise scan finds."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from bench.plan import NearDuplicateFilter
from services.text.analysis import jaccard


def _random_sets(seed: int, count: int) -> list[frozenset[str]]:
    """Term sets that often overlap heavily: variations of a few shared base sets."""
    rng = random.Random(seed)
    vocabulary = [f"t{i}" for i in range(60)]
    bases = [frozenset(rng.sample(vocabulary, rng.randint(2, 14))) for _ in range(12)]
    sets = []
    for _ in range(count):
        terms = set(rng.choice(bases))
        for _ in range(rng.randint(0, 3)):
            if terms and rng.random() < 0.5:
                terms.discard(rng.choice(sorted(terms)))
            else:
                terms.add(rng.choice(vocabulary))
        sets.append(frozenset(terms))
    return sets


@pytest.mark.parametrize("threshold", [0.5, 0.7, 0.85, 1.0])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_filter_matches_pairwise_scan(threshold: float, seed: int) -> None:
    sets = _random_sets(seed, 400)
    order = Counter(t for terms in sets[:50] for t in terms)
    near = NearDuplicateFilter(threshold, order)
    kept: list[frozenset[str]] = []
    expected = 0
    for terms in sets:
        truth = any(jaccard(terms, other) >= threshold for other in kept)
        answer = near.is_near_duplicate(terms)
        assert answer == truth, (sorted(terms), threshold)
        expected += truth
        if not answer:
            near.add(terms)
            kept.append(terms)
    # The data must exercise both answers, or the comparison proves little.
    assert 0 < expected < len(sets)
