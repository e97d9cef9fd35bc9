"""Session continuity (seed 004 §4.2): what was said right around a strong hit matters too.

A question is often answered in the turn after the one that shares its words ("What did
you research?" → "Adoption agencies."). The ``anchors`` best lexical hits with relevance at
least ``min_relevance`` lend their neighbours

    continuity(n) = relevance(anchor) · decay^(|distance| − 1)

where distance counts memories in (created_at, id) order, within the anchor's session: the
same ``source`` (or none on both) and created within the continuity window. A memory next
to several anchors keeps its best value. Nothing here depends on a dataset's ids: the
LoCoMo harness gives every turn its session's date, as a chat frontend stamps each
statement with the time it was said.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from services.repositories.neighbours import Neighbour


@dataclass(frozen=True)
class Continuity:
    """A memory's continuity value and the anchor it came from."""

    value: float
    anchor_id: int
    distance: int


def continuity_values(
    anchors: Iterable[tuple[int, float]], neighbours: Iterable[Neighbour], decay: float
) -> dict[int, Continuity]:
    """Each neighbour's best continuity over all anchors."""
    strength = dict(anchors)
    values: dict[int, Continuity] = {}
    for n in neighbours:
        value = strength[n.anchor_id] * decay ** (abs(n.distance) - 1)
        if n.memory_id not in values or value > values[n.memory_id].value:
            values[n.memory_id] = Continuity(value, n.anchor_id, n.distance)
    return values
