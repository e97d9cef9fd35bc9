"""AdminService: read-only inspection of every user's memories, scores and jobs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from models import JobRun, MemoryAssociation, MemoryScoreHistory, MemoryUser, UserMemory
from services.core.errors import MemoryNotFound
from services.core.settings import Settings
from services.repositories.associations import AssociationRepository
from services.repositories.jobs import AdminRepository, JobRunRepository
from services.repositories.memories import MemoryRepository


@dataclass(frozen=True)
class MemoryInspection:
    """One memory with the weighted contribution of each component, links and history."""

    memory: UserMemory
    contributions: dict[str, float]
    links: list[MemoryAssociation]
    history: list[MemoryScoreHistory]


def contributions(memory: UserMemory, settings: Settings) -> dict[str, float]:
    """Each stored component times its weight (they sum to the importance score)."""
    return {
        "frequency": memory.frequency_score * settings.weight_frequency,
        "recency": memory.recency_score * settings.weight_recency,
        "emotion": memory.emotion_score * settings.weight_emotion,
        "impact": memory.impact_score * settings.weight_impact,
    }


class AdminService:
    """Cross-user views for operators."""

    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.settings = settings
        self.admin = AdminRepository(session)
        self.jobs = JobRunRepository(session)
        self.memories = MemoryRepository(session)
        self.links = AssociationRepository(session)

    async def users(self, limit: int, after: str | None) -> list[tuple[MemoryUser, dict[str, int]]]:
        """Users with memory counts and their importance-level distribution."""
        return await self.admin.users(limit, after)

    async def inspect(self, memory_id: int) -> MemoryInspection:
        """Any memory by id, with its breakdown, links and score history."""
        memory = await self.memories.get_by_id(memory_id)
        if memory is None:
            raise MemoryNotFound(memory_id)
        return MemoryInspection(
            memory=memory,
            contributions=contributions(memory, self.settings),
            links=await self.links.for_memory(memory.user_id, memory.id),
            history=await self.memories.history(memory),
        )

    async def supersede_chain(self, memory: UserMemory, limit: int = 20) -> list[UserMemory]:
        """The memory's fact history, oldest first: the memories it replaced (each step
        back, the newest it replaced), itself, and those that replaced it in turn."""
        chain = [memory]
        seen = {memory.id}
        while len(chain) < limit:
            replaced = await self.admin.superseding(memory.user_id, chain[0].id)
            older = [m for m in replaced if m.id not in seen]
            if not older:
                break
            chain.insert(0, older[-1])
            seen.add(older[-1].id)
        while len(chain) < limit and chain[-1].superseded_by_id not in (None, *seen):
            newer = await self.memories.get(memory.user_id, chain[-1].superseded_by_id or 0)
            if newer is None:
                break
            chain.append(newer)
            seen.add(newer.id)
        return chain

    async def job_runs(self, limit: int) -> list[JobRun]:
        """The newest job runs."""
        return await self.jobs.recent(limit)

    async def last_levels(self) -> dict[str, int]:
        """Memories per importance level as the newest full rescoring run counted them
        (empty before the first): what /metrics reports without counting the table."""
        return await self.jobs.last_levels("rescore") or {}

    async def stats(self) -> dict[str, Any]:
        """Service-wide totals plus the last rescoring run."""
        totals = await self.admin.totals()
        last = await self.jobs.recent(1)
        totals["last_rescore"] = (
            {
                "status": last[0].status,
                "started_at": last[0].started_at,
                "finished_at": last[0].finished_at,
                "rows": last[0].rows,
            }
            if last
            else None
        )
        return totals
