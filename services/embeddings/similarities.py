"""What a similarity search answers: the nearest memories and the store's spread."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

# Below this many memories a store's spread of similarities says little: standing is
# not computed and the absolute floors apply (services/recall/evidence.py).
MIN_STORE_FOR_STANDING: Final = 20


@dataclass(frozen=True)
class Similarities:
    """The user's memories nearest a query, and how the query scores across the store.

    A cosine means different things in different stores and for different questions: a
    short question scores everything of a topic-heavy store high. How far a memory stands
    out from the rest of the same store for the same query does not depend on that.
    """

    cosines: dict[int, float] = field(default_factory=dict)  # the nearest: id → [0, 1]
    mean: float = 0.0  # the query's mean cosine over the whole store
    deviation: float = 0.0  # its standard deviation
    count: int = 0  # memories in the store

    @property
    def spread_known(self) -> bool:
        """The store is big (and varied) enough for its spread to mean anything."""
        return self.count >= MIN_STORE_FOR_STANDING and self.deviation > 1e-6

    def standing(self, cosine: float) -> float | None:
        """Standard deviations above the store's mean; None for a store too small (or
        too uniform) for its spread to mean anything."""
        if not self.spread_known:
            return None
        return (cosine - self.mean) / self.deviation
