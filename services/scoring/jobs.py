"""Scheduled jobs: thin adapters that open units of work and call the services.

The scheduler, ``jarvis-memory rescore`` (cron) and ``POST /admin/jobs/rescore`` all
call :func:`run_rescore`; with embeddings configured the scheduler and ``jarvis-memory
embed`` call :func:`run_embedding_backfill`. Each id batch commits on its own so row locks
are short and recalls keep answering during a run; the run row is written in its own transactions so
a failed run still records its error. A lock keeps two runs from rescoring at once (a
PostgreSQL advisory lock, a file lock beside an SQLite database: services/repositories/
dialect.py); the second is recorded as ``skipped``.
"""

from __future__ import annotations

import logging
import time

from models import JobRun
from services.core.clock import Clock
from services.core.db import Database
from services.core.metrics import RESCORE_ROWS, RESCORE_RUNS, RESCORE_SECONDS
from services.core.progress import NO_PROGRESS, Progress
from services.core.settings import Settings
from services.embeddings.service import Embeddings
from services.embeddings.vectors import Vector
from services.repositories.dialect import rescore_lock
from services.repositories.embeddings import EmbeddingRepository
from services.repositories.jobs import JobRunRepository
from services.scoring.rescoring import RescoringService

log = logging.getLogger(__name__)

RESCORE_JOB = "rescore"
EMBED_JOB = "embed"


async def run_rescore(
    db: Database,
    settings: Settings,
    clock: Clock,
    *,
    user_id: str | None = None,
    trigger: str = "schedule",
) -> JobRun:
    """Refresh impact counts and rescore every memory (or one user's); returns the run.

    A full run that succeeded also records the memories per level (``JobRun.levels``),
    which /metrics reports until the next one.
    """
    started = time.perf_counter()
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
        if status == "succeeded" and user_id is None:
            stored.levels = await JobRunRepository(session).level_counts()
    RESCORE_RUNS.labels(status, trigger).inc()
    RESCORE_SECONDS.observe(time.perf_counter() - started)
    RESCORE_ROWS.inc(rows)
    log.info("rescoring run %s %s: %d rows, %d escalations", run.id, status, rows, escalations)
    return stored


async def run_embedding_backfill(
    db: Database,
    settings: Settings,
    clock: Clock,
    embeddings: Embeddings,
    *,
    user_id: str | None = None,
    trigger: str = "schedule",
    progress: Progress = NO_PROGRESS,
) -> JobRun:
    """Embed every memory without a vector from the current model (or one user's).

    Memories are taken in id order, ``embedding_backfill_batch`` at a time: read in one
    short unit of work, embedded with no transaction open (a slow provider holds no
    lock), stored in another. A memory whose vector another model made counts as
    missing, so a change of provider or model re-embeds everything. A failing provider
    ends the run as ``failed`` with what it had stored; the next run goes on from there.
    """
    async with db.unit_of_work() as session:
        run = await JobRunRepository(session).start(EMBED_JOB, trigger, user_id, clock())
    rows, after = 0, 0
    status, error = "succeeded", None
    progress.start(None)  # how many lack a vector is only known by reading them all
    try:
        while True:
            async with db.unit_of_work() as session:
                batch = await EmbeddingRepository(session).unembedded(
                    embeddings.model, after, settings.embedding_backfill_batch, user_id
                )
                texts = await embeddings.texts(session, batch)
            if not batch:
                break
            after = batch[-1].memory_id
            vectors = await embeddings.embed(texts, seconds=settings.embedding_backfill_timeout)
            by_user: dict[str, list[tuple[int, Vector]]] = {}
            for item, vector in zip(batch, vectors, strict=True):
                by_user.setdefault(item.user_id, []).append((item.memory_id, vector))
            async with db.unit_of_work() as session:
                for owner, pairs in by_user.items():
                    rows += await embeddings.store(session, owner, pairs, clock())
            progress.advance(len(batch))
    except Exception as exc:
        log.warning("embedding backfill run %s failed after %d vectors: %s", run.id, rows, exc)
        status, error = "failed", f"{type(exc).__name__}: {exc}"
    async with db.unit_of_work() as session:
        stored = await JobRunRepository(session).get(run.id)
        assert stored is not None
        stored.status, stored.error, stored.rows = status, error, rows
        stored.finished_at = clock()
    log.info(
        "embedding backfill run %s %s: %d vectors (%s)", run.id, status, rows, embeddings.model
    )
    return stored
