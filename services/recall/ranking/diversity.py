"""Maximal marginal relevance over the fused candidates (seed 004 §4.5).

Greedy: the next result maximises

    mmr(c) = λ · score(c) / best_score − (1 − λ) · max_{s ∈ selected} jaccard(c, s)

where jaccard is the word overlap of seed 004's ``_calculate_diversity`` (English stems and
Chinese character bigrams here). λ = 1 keeps the fused order. Only the best ``pool``
candidates are re-ordered; the rest follow in score order.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

from services.text.analysis import jaccard

K = TypeVar("K", bound=Hashable)


def mmr_order(
    ranked: Sequence[K],
    scores: Mapping[K, float],
    terms: Callable[[K], frozenset[str]],
    *,
    lam: float,
    pool: int,
    limit: int,
) -> list[tuple[K, float]]:
    """The first ``limit`` of ``ranked`` (best first) re-ordered by MMR, each with the
    highest similarity to an earlier pick (0 for the first, and everywhere when λ = 1).

    Lazy greedy, with the same picks as the plain greedy loop: a candidate's mmr(c) can
    only fall as picks accumulate (its closest similarity only grows), so the value it
    had when last brought up to date is an upper bound. The candidate on top of the heap
    is compared with the picks made since, pushed back with its true value, and picked
    once it stays on top; ties go to the better-ranked, as before. Only the candidates
    that come near the top are compared at all (the plain loop compared every candidate
    of the pool with every pick).
    """
    if lam >= 1.0 or len(ranked) <= 1:
        return [(key, 0.0) for key in ranked[:limit]]
    head = list(ranked[:pool])
    best = max(scores[head[0]], 1e-9)
    closest = dict.fromkeys(head, 0.0)  # max similarity to the picks compared so far
    # (-mmr, rank, key, how many picks it has been compared with)
    heap = [(-(lam * scores[key] / best), rank, key, 0) for rank, key in enumerate(head)]
    heapq.heapify(heap)
    chosen: list[tuple[K, float]] = []
    picked_terms: list[frozenset[str]] = []
    while heap and len(chosen) < limit:
        _, rank, key, compared = heapq.heappop(heap)
        if compared < len(picked_terms):
            own = terms(key)
            nearest = closest[key]
            for other in picked_terms[compared:]:
                nearest = max(nearest, jaccard(own, other))
            closest[key] = nearest
            value = lam * scores[key] / best - (1.0 - lam) * nearest
            heapq.heappush(heap, (-value, rank, key, len(picked_terms)))
            continue
        chosen.append((key, closest[key]))
        picked_terms.append(terms(key))
    chosen += [(key, 0.0) for key in ranked[pool:][: limit - len(chosen)]]
    return chosen
