"""The in-process scheduler: APScheduler calling the same job functions as cron and admin."""

from __future__ import annotations

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from services.clock import Clock
from services.db import Database
from services.jobs import RESCORE_JOB, run_rescore
from services.settings import Settings


def build_scheduler(db: Database, settings: Settings, clock: Clock) -> AsyncIOScheduler:
    """An AsyncIOScheduler that rescores every ``rescore_interval`` seconds.

    ``max_instances=1`` and ``coalesce`` mean a slow run is never overlapped by the next
    and missed runs collapse into one.
    """
    scheduler = AsyncIOScheduler(timezone="UTC")
    scheduler.add_job(
        run_rescore,
        "interval",
        seconds=settings.rescore_interval,
        args=(db, settings, clock),
        kwargs={"trigger": "schedule"},
        id=RESCORE_JOB,
        max_instances=1,
        coalesce=True,
        replace_existing=True,
    )
    return scheduler
