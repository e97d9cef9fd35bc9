"""ImpactEvaluator: how much else a memory touches (seed 002 §3.4).

associated_count is the number of other memories of the same user linked to this one,
either because they share a topic (found when a memory is written) or because a client
linked them explicitly. A new memory links to at most ``topic_links_per_memory`` of the
newest memories sharing a topic: the impact component saturates at 5 links anyway, and
an unbounded fan-out would make one common topic quadratic.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from datetime import datetime

from models import MemoryAssociation
from services.core.settings import Settings
from services.repositories.associations import AssociationRepository
from services.repositories.search import SearchRepository


def newest_sharing(
    by_topic: Mapping[str, Sequence[int]], topics: Sequence[str], limit: int
) -> list[int]:
    """The ``limit`` newest (largest) ids in any of these topics' ascending id lists.

    A memory among them appears in every topic it shares within that topic's last
    ``limit`` ids (fewer than ``limit`` newer memories share anything at all), so lists
    cut to their newest ``limit`` ids give the same answer as full ones.
    """
    tails = [reversed(by_topic.get(t, [])[-limit:]) for t in topics]
    found: list[int] = []
    for memory in heapq.merge(*tails, reverse=True):
        if not found or found[-1] != memory:
            found.append(memory)
            if len(found) == limit:
                break
    return found


class ImpactEvaluator:
    """Creates links and keeps associated_count in step with them."""

    def __init__(
        self, search: SearchRepository, links: AssociationRepository, settings: Settings
    ) -> None:
        self.search = search
        self.links = links
        self.settings = settings

    async def link_by_topics(
        self, user_id: str, memory_id: int, topics: list[str], now: datetime
    ) -> list[int]:
        """Record the memory's topics and link it to memories sharing one; returns the ids."""
        await self.search.add_topics(user_id, memory_id, topics)
        shared = await self.search.memories_sharing_topics(
            user_id, memory_id, topics, self.settings.topic_links_per_memory
        )
        await self.links.add_topic_links(user_id, memory_id, shared, now)
        return list(shared)

    async def link_explicit(
        self, user_id: str, first: int, second: int, weight: float, now: datetime
    ) -> MemoryAssociation:
        """A client says two memories belong together."""
        return await self.links.upsert(
            user_id, first, second, kind="explicit", weight=weight, shared_topics=[], now=now
        )

    async def refresh(self, user_id: str, ids: list[int]) -> None:
        """Recount links of these memories."""
        await self.links.refresh_counts(user_id, ids)
