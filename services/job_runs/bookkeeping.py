"""A scheduled job's ``job_runs`` rows, shared by the rescoring and the embedding backfill.

A run writes its row, and finishes it, only while holding its job's lock; so the next run
to take the lock marks a row still ``running`` as ``failed`` ("abandoned: the process
running it stopped"): its process died (``kill -9``, a lost machine) mid-run.

Scheduled work runs once per interval across every process (``serve --workers 2``, two
replicas): the scheduler passes ``once_per``, its interval, and with the lock held a run
looks for a scheduled run of its job that started in the current interval (counted from
the Unix epoch, so every process agrees); if one did, this one is skipped and not
recorded, since the run that did the work is the record, and a row per idle process per
interval would bury it. A failed run counts too: the next interval tries again.
"""

from __future__ import annotations

import logging

from models import JobRun
from services.core.clock import Clock
from services.core.db import Database
from services.repositories.jobs import JobRunRepository

log = logging.getLogger(__name__)


async def claim(
    db: Database,
    clock: Clock,
    job: str,
    trigger: str,
    user_id: str | None,
    once_per: float | None,
) -> JobRun | None:
    """With the job's lock held: fail the runs of ``job`` left ``running`` by a process
    that stopped, then start this run, or return None when ``once_per`` is given and a
    scheduled run of the job already started in the current interval of that many
    seconds (the lease that makes each process's scheduler run a job once per interval
    among them all, services/scoring/scheduler.py)."""
    now = clock()
    async with db.unit_of_work() as session:
        jobs = JobRunRepository(session)
        abandoned = await jobs.fail_abandoned(job, now)
        if abandoned:
            log.warning(
                "%d %s run(s) left running by a stopped process marked failed", abandoned, job
            )
        if once_per is not None and await jobs.ran_this_interval(job, now, once_per):
            log.info("%s skipped: another process ran it this interval", job)
            return None
        return await jobs.start(job, trigger, user_id, now)


async def skipped(
    db: Database, clock: Clock, job: str, trigger: str, user_id: str | None, *, record: bool
) -> JobRun:
    """A run that did not run: recorded as ``skipped`` only when ``record``."""
    now = clock()
    run = JobRun(
        job=job,
        trigger=trigger,
        user_id=user_id,
        status="skipped",
        started_at=now,
        finished_at=now,
        rows=0,
        escalations=0,
    )
    if record:
        async with db.unit_of_work() as session:
            session.add(run)
    return run
