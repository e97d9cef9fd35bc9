"""Timing and statistics: percentiles, medians over repetitions, ratios against a floor.

Latency percentiles use linear interpolation between order statistics (NumPy's default,
"type 7"): for sorted samples x_0..x_{n-1}, p_q = x_i + (x_{i+1} − x_i)·f with
i + f = q·(n − 1). Every figure is computed per repetition and the median over the
repetitions is reported, so one noisy repetition on a shared machine moves nothing.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from evals.metrics import percentile

PERCENTILES = (50, 95, 99)


def median(values: Sequence[float]) -> float:
    """The median of the repetitions' values."""
    return float(statistics.median(values))


def ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, NaN-free: 0 when the denominator is 0."""
    return numerator / denominator if denominator else 0.0


async def timed(action: Callable[[], Awaitable[Any]]) -> float:
    """Seconds one awaited call takes (``perf_counter``)."""
    start = time.perf_counter()
    await action()
    return time.perf_counter() - start


@dataclass
class LatencySeries:
    """Latency samples in seconds, grouped by repetition."""

    reps: list[list[float]] = field(default_factory=list)

    def new_rep(self) -> None:
        """Start a repetition."""
        self.reps.append([])

    def add(self, seconds: float) -> None:
        """One sample of the current repetition."""
        self.reps[-1].append(seconds)

    def summary_ms(self) -> dict[str, float]:
        """p50/p95/p99 in milliseconds: each the median over repetitions of that percentile.

        A repetition without samples (every request in it failed) is left out; with no
        samples at all every percentile is 0 and ``samples`` says so.
        """
        reps = [rep for rep in self.reps if rep]
        out = {
            f"p{q}": median([percentile(rep, q) for rep in reps]) * 1000.0 if reps else 0.0
            for q in PERCENTILES
        }
        out["samples"] = float(sum(len(rep) for rep in self.reps))
        return out


def throughput(count: int, seconds: Sequence[float]) -> dict[str, float]:
    """The median time of repetitions that each handled ``count`` items, and the rate."""
    mid = median(seconds)
    return {
        "seconds": mid,
        "per_second": ratio(count, mid),
        "min_seconds": min(seconds),
        "max_seconds": max(seconds),
        "repetitions": float(len(seconds)),
    }
