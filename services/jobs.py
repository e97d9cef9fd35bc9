"""Scheduled jobs: thin adapters that open units of work and call the services.

The scheduler, ``jarvis-memory rescore`` (cron) and ``POST /admin/jobs/rescore`` all
call :func:`run_rescore`. Each id batch commits on its own so row locks are short and
recalls keep answering during a run; the run row is written in its own transactions so
a failed run still records its error. On PostgreSQL a session-level advisory lock keeps
several replicas from rescoring at once (a second run is recorded as ``skipped``).
"""

from __future__ import annotations

import logging

from models import JobRun
from services.clock import Clock
from services.db import Database
from services.repositories.dialect import rescore_lock
from services.repositories.jobs import JobRunRepository
from services.rescoring import RescoringService
from services.settings import Settings

log = logging.getLogger(__name__)

RESCORE_JOB = "rescore"


async def run_rescore(
    db: Database,
    settings: Settings,
    clock: Clock,
    *,
    user_id: str | None = None,
    trigger: str = "schedule",
) -> JobRun:
    """Refresh impact counts and rescore every memory (or one user's); returns the run."""
    async with db.unit_of_work() as session:
        run = await JobRunRepository(session).start(RESCORE_JOB, trigger, user_id, clock())
    rows = escalations = 0
    status, error = "succeeded", None
    try:
        async with rescore_lock(db.engine) as acquired:
            if not acquired:
                status = "skipped"
            else:
                now = clock()
                async with db.unit_of_work() as session:
                    bounds = await RescoringService(session, settings).id_bounds(user_id)
                if bounds is not None:
                    low, high = bounds
                    for start in range(low, high + 1, settings.rescore_batch_size):
                        async with db.unit_of_work() as session:
                            n, e = await RescoringService(session, settings).rescore_range(
                                now, start, start + settings.rescore_batch_size, user_id
                            )
                        rows, escalations = rows + n, escalations + e
    except Exception as exc:
        log.exception("rescoring run %s failed", run.id)
        status, error = "failed", f"{type(exc).__name__}: {exc}"
    async with db.unit_of_work() as session:
        stored = await JobRunRepository(session).get(run.id)
        assert stored is not None
        stored.status, stored.error = status, error
        stored.rows, stored.escalations = rows, escalations
        stored.finished_at = clock()
    log.info("rescoring run %s %s: %d rows, %d escalations", run.id, status, rows, escalations)
    return stored
