"""The in-process scheduler: APScheduler calling the same job functions as cron and admin."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from services.core.clock import Clock
from services.core.db import Database
from services.core.settings import Settings
from services.embeddings.jobs import EMBED_JOB, run_embedding_backfill
from services.embeddings.service import Embeddings
from services.scoring.jobs import RESCORE_JOB, run_rescore

# The backfill's one run right after start, beside its interval job (EMBED_JOB).
EMBED_START_JOB = f"{EMBED_JOB}-start"


def build_scheduler(
    db: Database, settings: Settings, clock: Clock, embeddings: Embeddings | None = None
) -> AsyncIOScheduler:
    """An AsyncIOScheduler that rescores every ``rescore_interval`` seconds and, with
    embeddings configured, backfills missing vectors every ``embedding_backfill_interval``
    (first right after start, so a change of model is picked up at once).

    ``max_instances=1`` and ``coalesce`` mean a slow run is never overlapped by the next
    and missed runs collapse into one. ``once_per`` makes each job run once per interval
    among every process on the database (services/job_runs/bookkeeping.py): with two workers or
    replicas, the first to fire in an interval runs it and the others skip. The backfill
    run right after start is not leased (a process started with another model embeds
    at once), nor is one a write of this process waits for.
    """
    scheduler = AsyncIOScheduler(timezone="UTC")
    scheduler.add_job(
        run_rescore,
        "interval",
        seconds=settings.rescore_interval,
        args=(db, settings, clock),
        kwargs={"trigger": "schedule", "once_per": settings.rescore_interval},
        id=RESCORE_JOB,
        max_instances=1,
        coalesce=True,
        replace_existing=True,
    )
    if embeddings is not None:
        scheduler.add_job(
            run_embedding_backfill,
            "interval",
            seconds=settings.embedding_backfill_interval,
            args=(db, settings, clock, embeddings),
            kwargs={"trigger": "schedule", "once_per": settings.embedding_backfill_interval},
            id=EMBED_JOB,
            max_instances=1,
            coalesce=True,
            replace_existing=True,
        )
        scheduler.add_job(
            run_embedding_backfill,
            "date",
            run_date=datetime.now(UTC),
            args=(db, settings, clock, embeddings),
            kwargs={"trigger": "schedule"},
            id=EMBED_START_JOB,
            replace_existing=True,
            misfire_grace_time=None,  # however late the scheduler starts, it runs
        )
        embeddings.backfill.soon = _backfill_soon(scheduler, settings.embedding_backfill_delay)
    return scheduler


def _backfill_soon(scheduler: AsyncIOScheduler, delay: float) -> Callable[[], None]:
    """Move the backfill's next run to ``delay`` seconds from now, unless it is sooner.

    Called after a write's commit while no run is under way, or when a run ends with a
    write it has not read (services/embeddings/nudges.py): a write made during a run is
    read by that run, never left to a nudge the scheduler would drop while the job is
    still running. A burst of writes moves the run once, not once per write.
    """

    def nudge() -> None:
        job = scheduler.get_job(EMBED_JOB)
        soon = datetime.now(UTC) + timedelta(seconds=delay)
        if job is not None and job.next_run_time is not None and job.next_run_time > soon:
            job.modify(next_run_time=soon)

    return nudge
