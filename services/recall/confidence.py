"""A hit's ``confidence``: the chance, in [0, 1], that it is a result a person would
accept for the query, from its query-dependent evidence alone (services/recall/evidence.py).

    confidence = 1 / (1 + exp(-(b0 + Σ_i b_i · x_i)))

over the features of ``features``. 0.5 means that, on the development data it was fitted
on, about half the hits with that evidence were acceptable results for their question;
0.8, four in five. Importance, recency and how the hit ranks against the others play no
part: a memory is not more likely to answer a question because it matters.

Two sets of constants, one per way recall is served, each fitted by ``python -m
evals.people.fit_confidence [--embedding local|none]`` on the **fit part** of the people
written as chat (evals/people; the test part is never read): every fit person written in
each of the three write modes (statements; their turns with a conversation; their turns
and the assistant's), every question asked untracked with top_k 10 and ``min_confidence``
0, each hit a row labelled acceptable or not for its question. A logistic regression with
a small L2 penalty and no negative coefficient (``evals.confidence_fit``:
no evidence may count against a hit), cross-validated by person: the tool prints each
held-out person's log loss and each coefficient's range across the folds beside the
constants pasted here, and its calibration table.

- ``OFFLINE`` (no semantic source): the similarity features are 0 in every row.
- ``WITH_SEMANTIC`` (the bundled model, memories embedded by the backfill job as the
  server does): ``standing``, how far the similarity stands out in the person's own store
  for this query, carries the most weight beside a similarity alone; a raw cosine above
  unrelated text's counts little once its standing is known.

Which set applies is decided per recall: a source that fails is skipped and the offline
constants used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

from services.recall.evidence import SEMANTIC_UNRELATED, Evidence

FEATURES: Final = (
    "term_coverage",  # the query's term weight the memory holds
    "relevance",  # BM25 / the best candidate's
    "phrase",
    "time",  # a time expression beside content words
    "time_only",  # a time expression and nothing else to look for
    "feeling",
    "semantic",  # the similarity above unrelated text's (SEMANTIC_UNRELATED)
    "semantic_alone",  # the same, for a hit with no other evidence of its own
    "semantic_across",  # the same, for such a hit in the other language than the query
    "context",  # a neighbour's continuity, for a hit with no evidence of its own
    "standing",  # deviations its similarity stands above the store's mean, beyond one
)


@dataclass(frozen=True)
class Fitted:
    """An intercept and a coefficient per feature (``FEATURES`` order)."""

    intercept: float
    coefficients: tuple[float, ...]


# Recall without a semantic source (the offline default): no row had a similarity, so
# the two semantic coefficients are 0.
OFFLINE: Final = Fitted(
    -2.989, (4.355, 0.714, 1.403, 3.601, 5.063, 1.600, 0.0, 0.0, 0.0, 0.128, 0.0)
)
# Recall with one (the bundled model): every memory now has a similarity, and a lexical
# match is surer when it is also similar, so each feature weighs differently.
WITH_SEMANTIC: Final = Fitted(
    -3.284, (1.929, 0.142, 0.715, 3.871, 4.924, 1.337, 0.442, 4.169, 3.570, 0.000, 1.337)
)


def features(evidence: Evidence, time_only: bool) -> tuple[float, ...]:
    """The hit's feature vector, in ``FEATURES`` order."""
    e = evidence
    beyond = max(0.0, e.semantic - SEMANTIC_UNRELATED)
    return (
        e.term_coverage,
        e.relevance,
        e.phrase,
        0.0 if time_only else e.time,
        e.time if time_only else 0.0,
        e.feeling,
        beyond,
        beyond if e.semantic_alone else 0.0,
        beyond if e.semantic_alone and e.across else 0.0,
        0.0 if e.own else e.continuity,
        max(0.0, e.standing - 1.0) if e.standing is not None else 0.0,
    )


def logistic(z: float) -> float:
    """1 / (1 + e^-z), without overflow."""
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    ez = math.exp(z)
    return ez / (1.0 + ez)


# With a semantic source in a store too small for a standing (fewer than
# MIN_STORE_FOR_STANDING memories): the constants fitted before standing existed, on the
# scenarios and our cross-lingual questions, where a similarity is judged by its cosine
# alone. WITH_SEMANTIC's intercept assumes a standing, and the offline constants ignore
# the similarity: either would leave a new person's other-language answer unreturned.
SMALL_STORE: Final = Fitted(
    -2.519, (2.397, 0.000, 1.812, 2.478, 6.632, 4.293, 9.906, 2.974, 7.630, 0.887, 0.0)
)


def confidence(
    evidence: Evidence, time_only: bool, semantic: bool = False, small_store: bool = False
) -> float:
    """The fitted chance that a hit with this evidence is acceptable, by the constants
    fitted with a semantic source (``semantic``: recall asked one and it answered; in a
    store too small for a standing, ``small_store``) or without."""
    fitted = (SMALL_STORE if small_store else WITH_SEMANTIC) if semantic else OFFLINE
    x = features(evidence, time_only)
    z = fitted.intercept + sum(b * v for b, v in zip(fitted.coefficients, x, strict=True))
    return logistic(z)
