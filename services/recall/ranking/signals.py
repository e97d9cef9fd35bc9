"""The named recall signals and their weighted sum (seed 004 §4.2).

    score(m) = Σ_s weight_s(query type) · value_s(m)

Every value is in [0, 1]:

- lexical: BM25 / the best candidate's BM25 (services/recall/relevance.py);
- phrase: exact keyword / phrase match (services/recall/ranking/phrases.py);
- importance: the stored importance score (seed 002);
- temporal: match between the query's time expression and the memory's date
  (services/recall/ranking/time_expressions.py), 0 when the query names no time;
- recency: 0.5^(days since created / RECALL_RECENCY_HALF_LIFE_DAYS);
- continuity: neighbour of a strong hit (services/recall/ranking/continuity.py);
- semantic: similarity from a configured semantic source, 0 without one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from services.core.settings import SignalWeights

SIGNALS: tuple[str, ...] = tuple(SignalWeights.model_fields)


@dataclass(frozen=True)
class Contribution:
    """One signal's value, weight and weighted part of the score."""

    value: float
    weight: float

    @property
    def contribution(self) -> float:
        return self.value * self.weight


# Per signal, its value for each candidate that has one: signal → memory id → value.
SignalTable = dict[str, dict[int, float]]


def fused_scores(
    table: Mapping[str, Mapping[int, float]], weights: Mapping[str, float], keys: Iterable[int]
) -> dict[int, float]:
    """Σ weight · value over the signals each key has, a signal at a time (the hot path:
    one dict for all the keys, where a dict per key cost more than the sums)."""
    scores = dict.fromkeys(keys, 0.0)
    for name, column in table.items():
        weight = weights[name]
        for key, value in column.items():
            scores[key] += weight * value
    return scores


def signal_values(table: Mapping[str, Mapping[int, float]], key: int) -> dict[str, float]:
    """One key's row of the table: the signals that have a value for it."""
    return {name: column[key] for name, column in table.items() if key in column}


def contributions(values: Mapping[str, float], weights: SignalWeights) -> dict[str, Contribution]:
    """Every signal's part of the score, for explanations (a missing value is 0)."""
    return {name: Contribution(values.get(name, 0.0), getattr(weights, name)) for name in SIGNALS}


def recency(age_days: float, half_life_days: float) -> float:
    """0.5^(age / half-life); a memory dated in the future counts as new."""
    return float(0.5 ** (max(age_days, 0.0) / half_life_days))
