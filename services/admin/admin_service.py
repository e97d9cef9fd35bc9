"""AdminService: read-only inspection of every user's memories, scores and jobs."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from models import JobRun, MemoryAssociation, MemoryScoreHistory, MemoryUser, UserMemory
from services.core.errors import MemoryNotFound
from services.core.settings import Settings
from services.repositories.associations import AssociationRepository
from services.repositories.embeddings import EmbeddingRepository
from services.repositories.jobs import AdminRepository, JobRunRepository
from services.repositories.memories import MemoryRepository

# The job names of services/scoring/jobs.py and services/embeddings/jobs.py (a service
# may not import the jobs' modules).
RESCORE_JOB = "rescore"
EMBED_JOB = "embed"


@dataclass(frozen=True)
class VectorBacklog:
    """Memories waiting for a vector from the current model, and how fast they go.

    ``pending``: memories without one (and not ``failed``); ``oldest_pending_seconds``:
    how long ago the oldest of them was written (None when none waits); ``failed``:
    memories whose text the provider would not embed, marked and skipped by the backfill
    until the text changes (services/embeddings/backfill_split.py); ``backfill_rate``:
    vectors per second of the newest finished backfill run that stored any (its rows over
    its duration; None before the first, or for a run that took no measurable time).
    """

    model: str
    pending: int
    oldest_pending_seconds: float | None
    backfill_rate: float | None
    failed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "pending": self.pending,
            "oldest_pending_seconds": self.oldest_pending_seconds,
            "backfill_rate": self.backfill_rate,
            "failed": self.failed,
        }


def _run_summary(run: JobRun | None) -> dict[str, Any] | None:
    if run is None:
        return None
    return {
        "status": run.status,
        "started_at": run.started_at,
        "finished_at": run.finished_at,
        "rows": run.rows,
        "failures": run.failures,
    }


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
        self.vectors = EmbeddingRepository(session)
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

    async def vector_backlog(self, model: str, now: datetime) -> VectorBacklog:
        """What waits for the embedding backfill under ``model``, and its last rate."""
        pending, oldest = await self.vectors.pending(model)
        run = await self.jobs.last_finished_with_rows(EMBED_JOB)
        rate = None
        if run is not None and run.finished_at is not None:
            seconds = (run.finished_at - run.started_at).total_seconds()
            rate = run.rows / seconds if seconds > 0 else None
        age = None if oldest is None else max(0.0, (now - oldest).total_seconds())
        failed = await self.vectors.failed(model)
        return VectorBacklog(model, pending, age, rate, failed)

    async def stats(self, embedding_model: str | None, now: datetime) -> dict[str, Any]:
        """Service-wide totals; the newest rescoring run and the newest embedding run;
        with embeddings configured (``embedding_model``, the name the current vectors
        are stored under) the vectors still to make (else ``embedding`` is None)."""
        totals = await self.admin.totals()
        totals["last_rescore"] = _run_summary(await self.jobs.latest(RESCORE_JOB))
        totals["last_embedding"] = _run_summary(await self.jobs.latest(EMBED_JOB))
        totals["embedding"] = (
            None
            if embedding_model is None
            else (await self.vector_backlog(embedding_model, now)).as_dict()
        )
        return totals
