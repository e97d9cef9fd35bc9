"""The rescoring job: a thin adapter that opens units of work and calls the rescoring service.

The scheduler, ``jarvis-memory rescore`` (cron) and ``POST /admin/jobs/rescore`` all
call :func:`run_rescore`. Each id batch commits on its own so row locks are short and
recalls keep answering during a run; the run row is written in its own transactions so a
failed run still records its error. A lock keeps two runs from running at once, in one
process or several (a PostgreSQL advisory lock, a file lock beside an SQLite database:
services/repositories/dialect/seam.py); the second is recorded as ``skipped``. The run rows,
the lease that runs it once per interval among processes and the abandoned runs are
services/job_runs/bookkeeping.py's; the embedding backfill is services/embeddings/jobs.py.
"""

from __future__ import annotations

import logging
import time

from models import JobRun
from services.core.clock import Clock
from services.core.db import Database
from services.core.metrics import RESCORE_ROWS, RESCORE_RUNS, RESCORE_SECONDS
from services.core.settings import Settings
from services.job_runs.bookkeeping import claim, skipped
from services.repositories.dialect.seam import rescore_lock
from services.repositories.jobs import JobRunRepository
from services.scoring.rescoring import RescoringService

log = logging.getLogger(__name__)

RESCORE_JOB = "rescore"


async def run_rescore(
    db: Database,
    settings: Settings,
    clock: Clock,
    *,
    user_id: str | None = None,
    trigger: str = "schedule",
    once_per: float | None = None,
) -> JobRun:
    """Refresh impact counts and rescore every memory (or one user's); returns the run.

    A full run that succeeded also records the memories per level (``JobRun.levels``),
    which /metrics reports until the next one. With ``once_per`` (the scheduler's
    interval) the run is skipped, unrecorded, when a scheduled run already started in the
    current interval (:func:`services.job_runs.bookkeeping.claim`).
    """
    started = time.perf_counter()
    rows = escalations = 0
    status, error = "succeeded", None
    async with rescore_lock(db.engine) as acquired:
        if not acquired:
            run = await skipped(db, clock, RESCORE_JOB, trigger, user_id, record=True)
            RESCORE_RUNS.labels("skipped", trigger).inc()
            return run
        claimed = await claim(db, clock, RESCORE_JOB, trigger, user_id, once_per)
        if claimed is None:
            RESCORE_RUNS.labels("skipped", trigger).inc()
            return await skipped(db, clock, RESCORE_JOB, trigger, user_id, record=False)
        run = claimed
        try:
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
        # Finished while the lock is held: a running row seen by the lock's next holder
        # is one whose process stopped.
        async with db.unit_of_work() as session:
            stored = await JobRunRepository(session).get(run.id)
            assert stored is not None
            stored.status, stored.error = status, error
            stored.rows, stored.escalations = rows, escalations
            stored.finished_at = clock()
            if status == "succeeded" and user_id is None:
                stored.levels = await JobRunRepository(session).level_counts()
    RESCORE_RUNS.labels(status, trigger).inc()
    RESCORE_SECONDS.observe(time.perf_counter() - started)
    RESCORE_ROWS.inc(rows)
    log.info("rescoring run %s %s: %d rows, %d escalations", run.id, status, rows, escalations)
    return stored
