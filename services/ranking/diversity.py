"""Maximal marginal relevance over the fused candidates (seed 004 §4.5).

Greedy: the next result maximises

    mmr(c) = λ · score(c) / best_score − (1 − λ) · max_{s ∈ selected} jaccard(c, s)

where jaccard is the word overlap of seed 004's ``_calculate_diversity`` (English stems and
Chinese character bigrams here). λ = 1 keeps the fused order. Only the best ``pool``
candidates are re-ordered; the rest follow in score order.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import TypeVar

from services.analysis import jaccard

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
    highest similarity to an earlier pick (0 for the first, and everywhere when λ = 1)."""
    if lam >= 1.0 or len(ranked) <= 1:
        return [(key, 0.0) for key in ranked[:limit]]
    head = list(ranked[:pool])
    best = max(scores[head[0]], 1e-9)
    closest = dict.fromkeys(head, 0.0)  # max similarity to anything selected so far
    chosen: list[tuple[K, float]] = []
    while head and len(chosen) < limit:
        pick = max(head, key=lambda k: lam * scores[k] / best - (1.0 - lam) * closest[k])
        head.remove(pick)
        chosen.append((pick, closest[pick]))
        picked_terms = terms(pick)
        for key in head:
            closest[key] = max(closest[key], jaccard(terms(key), picked_terms))
    chosen += [(key, 0.0) for key in ranked[pool:][: limit - len(chosen)]]
    return chosen
