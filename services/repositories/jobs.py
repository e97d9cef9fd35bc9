"""SQL for job runs and the admin-wide views (the only queries not scoped to one user)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from models import JobRun, MemoryUser, UserMemory

ABANDONED = "abandoned: the process running it stopped"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def interval_start(now: datetime, seconds: float) -> datetime:
    """The start of the interval of ``seconds`` that ``now`` falls in, counted from the
    Unix epoch: every process agrees on it without talking to the others."""
    elapsed = (now - _EPOCH).total_seconds()
    return _EPOCH + timedelta(seconds=(elapsed // seconds) * seconds)


class JobRunRepository:
    """Reads and writes ``job_runs``."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def start(self, job: str, trigger: str, user_id: str | None, now: datetime) -> JobRun:
        """A new run in state ``running``."""
        run = JobRun(job=job, trigger=trigger, user_id=user_id, status="running", started_at=now)
        self.session.add(run)
        await self.session.flush()
        return run

    async def fail_abandoned(self, job: str, now: datetime) -> int:
        """Mark every run of ``job`` still ``running`` as failed (:data:`ABANDONED`);
        how many. Only for a caller holding the job's lock (services/repositories/dialect/seam.py
        ``job_lock``): every run writes its row while holding it, so a ``running`` row
        then is one whose process stopped before finishing it."""
        result = await self.session.execute(
            update(JobRun)
            .where(JobRun.job == job, JobRun.status == "running")
            .values(status="failed", error=ABANDONED, finished_at=now)
            .execution_options(synchronize_session=False)
        )
        return int(getattr(result, "rowcount", 0) or 0)

    async def ran_this_interval(self, job: str, now: datetime, seconds: float) -> bool:
        """Whether a scheduled run of ``job`` (one that ran: succeeded, failed or still
        running, not skipped) started in the current interval of ``seconds``
        (:func:`interval_start`)."""
        found = await self.session.execute(
            select(JobRun.id)
            .where(
                JobRun.job == job,
                JobRun.trigger == "schedule",
                JobRun.status != "skipped",
                JobRun.started_at >= interval_start(now, seconds),
            )
            .limit(1)
        )
        return found.scalar() is not None

    async def get(self, run_id: int) -> JobRun | None:
        """One run."""
        return await self.session.get(JobRun, run_id)

    async def level_counts(self) -> dict[str, int]:
        """Memories per importance level, across every user."""
        rows = await self.session.execute(
            select(UserMemory.importance_level, func.count()).group_by(UserMemory.importance_level)
        )
        return {str(level): int(n) for level, n in rows}

    async def last_levels(self, job: str) -> dict[str, int] | None:
        """The level counts the newest run of ``job`` that recorded any left."""
        found = await self.session.execute(
            select(JobRun.levels)
            .where(JobRun.job == job, JobRun.levels.is_not(None))
            .order_by(JobRun.started_at.desc(), JobRun.id.desc())
            .limit(1)
        )
        levels: dict[str, int] | None = found.scalar()
        return levels

    async def latest(self, job: str) -> JobRun | None:
        """The newest run of ``job`` (one probe of ``ix_job_runs_job_started``)."""
        found = await self.session.execute(
            select(JobRun)
            .where(JobRun.job == job)
            .order_by(JobRun.started_at.desc(), JobRun.id.desc())
            .limit(1)
        )
        return found.scalar()

    async def last_finished_with_rows(self, job: str) -> JobRun | None:
        """The newest finished run of ``job`` that wrote any rows: its rate is the rate
        of the work, not of a run that found nothing to do."""
        found = await self.session.execute(
            select(JobRun)
            .where(JobRun.job == job, JobRun.finished_at.is_not(None), JobRun.rows > 0)
            .order_by(JobRun.started_at.desc(), JobRun.id.desc())
            .limit(1)
        )
        return found.scalar()

    async def recent(self, limit: int) -> list[JobRun]:
        """The newest runs first."""
        result = await self.session.execute(
            select(JobRun).order_by(JobRun.started_at.desc(), JobRun.id.desc()).limit(limit)
        )
        return list(result.scalars())


class AdminRepository:
    """Cross-user aggregates for the admin views."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def users(self, limit: int, after: str | None) -> list[tuple[MemoryUser, dict[str, int]]]:
        """Users in id order with their memory count per importance level."""
        stmt = select(MemoryUser).order_by(MemoryUser.user_id).limit(limit)
        if after is not None:
            stmt = stmt.where(MemoryUser.user_id > after)
        users = list((await self.session.execute(stmt)).scalars())
        if not users:
            return []
        levels = await self.session.execute(
            select(UserMemory.user_id, UserMemory.importance_level, func.count())
            .where(UserMemory.user_id.in_([u.user_id for u in users]))
            .group_by(UserMemory.user_id, UserMemory.importance_level)
        )
        by_user: dict[str, dict[str, int]] = {u.user_id: {} for u in users}
        for user_id, level, count in levels:
            by_user[user_id][level] = int(count)
        return [(u, by_user[u.user_id]) for u in users]

    async def superseding(self, user_id: str, memory_id: int) -> list[UserMemory]:
        """The memories that ``memory_id`` superseded, oldest first."""
        result = await self.session.execute(
            select(UserMemory)
            .where(UserMemory.user_id == user_id, UserMemory.superseded_by_id == memory_id)
            .order_by(UserMemory.created_at, UserMemory.id)
        )
        return list(result.scalars())

    async def totals(self) -> dict[str, Any]:
        """Service-wide counts and score statistics."""
        row = (
            await self.session.execute(
                select(
                    func.count(),
                    func.avg(UserMemory.importance_score),
                    func.sum(UserMemory.recall_count),
                    func.sum(UserMemory.mention_count),
                )
            )
        ).one()
        levels = await self.session.execute(
            select(UserMemory.importance_level, func.count()).group_by(UserMemory.importance_level)
        )
        users = (await self.session.execute(select(func.count()).select_from(MemoryUser))).scalar()
        return {
            "users": int(users or 0),
            "memories": int(row[0] or 0),
            "mean_importance": float(row[1] or 0.0),
            "recalls": int(row[2] or 0),
            "mentions": int(row[3] or 0),
            "levels": {str(level): int(n) for level, n in levels},
        }
