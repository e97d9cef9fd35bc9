"""A hit's ``confidence``: the chance, in [0, 1], that it is a result a person would
accept for the query, from its query-dependent evidence alone (services/recall/evidence.py).

    confidence = 1 / (1 + exp(-(b0 + Σ_i b_i · x_i)))

over the features of ``features``. 0.5 means that, on the development data it was fitted
on, about half the hits with that evidence were acceptable results for their question;
0.8, four in five. Importance, recency and how the hit ranks against the others play no
part: a memory is not more likely to answer a question because it matters.

Two sets of constants, one per way recall is served, each fitted by ``python -m
services.evaluation.confidence_fit`` (a logistic regression with a small L2 penalty,
Newton's method) on every hit returned at ``min_confidence`` 0 with top_k 10 for the
scenario questions (label: acceptable for its question, services/evaluation/scenarios)
and the LoCoMo development split's questions (label: holds an evidence turn), each data
set weighed equally and each with an intercept of its own; the scenarios' intercept is
the one used here, since only they label what a person would accept (LoCoMo's evidence
labels leave out acceptable neighbours). The printed constants are pasted here.

- ``OFFLINE`` (no semantic source, the default; 434 + 9,956 hits): on the scenario hits,
  mean confidence per tenth against the share acceptable 0.17/0.14, 0.25/0.14,
  0.34/0.23, 0.44/0.45, 0.55/0.82, 0.65/0.60, 0.75/0.92, 0.88/0.94, 0.98/1.00 (log loss
  0.38). Any evidence of its own gives at least 1 / (1 + e^2.183) ≈ 0.10.
- ``WITH_SEMANTIC`` (``--embedding local``: the bundled model, the memories embedded by
  the backfill job as the server does, a turn with the turns before it; 521 + 9,956 hits,
  the scenarios' rows with our cross-lingual questions, services/evaluation/bilingual):
  0.09/0.00, 0.14/0.04, 0.24/0.23, 0.36/0.38, 0.46/0.65, 0.54/0.59, 0.65/0.65, 0.74/0.83,
  0.85/0.91, 0.98/0.99 (log loss 0.29). One set could not serve both: with a source every
  hit has some similarity and a lexical match that is also similar is surer, so every
  coefficient moves (fitted on both sets of hits together, the offline scenarios' hit@1
  fell from 0.854 to 0.796). ``relevance`` is held at 0 here: beside term coverage and
  similarity it came out negative, and no evidence may count against a hit (the fit's
  docstring).

The similarity counts only above unrelated text's (``SEMANTIC_UNRELATED``): a similarity
alone (no term, phrase, time or feeling) of 0.35 (``SEMANTIC_FLOOR``, below which it is
no evidence) gives 0.36, 0.4 gives 0.51 and 0.5 gives 0.79. For a memory in the other
language than the query, where a similarity is all the evidence there can be
(``semantic_across``), it counts from 0.3 (``SEMANTIC_FLOOR_ACROSS``): 0.3 gives 0.39,
0.35 0.64 and 0.4 0.83. Which set applies is decided per recall: a source that fails is
skipped and the offline constants used.
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
    -3.423, (1.869, 0.057, 0.811, 3.603, 4.607, 1.199, 0.706, 4.132, 3.462, 0.029, 1.418)
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


def confidence(evidence: Evidence, time_only: bool, semantic: bool = False) -> float:
    """The fitted chance that a hit with this evidence is acceptable, by the constants
    fitted with a semantic source (``semantic``: recall asked one and it answered) or
    without."""
    fitted = WITH_SEMANTIC if semantic else OFFLINE
    x = features(evidence, time_only)
    z = fitted.intercept + sum(b * v for b, v in zip(fitted.coefficients, x, strict=True))
    return logistic(z)
