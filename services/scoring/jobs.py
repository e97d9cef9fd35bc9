"""Scheduled jobs: thin adapters that open units of work and call the services.

The scheduler, ``jarvis-memory rescore`` (cron) and ``POST /admin/jobs/rescore`` all
call :func:`run_rescore`; with embeddings configured the scheduler and ``jarvis-memory
embed`` call :func:`run_embedding_backfill`. Each id batch commits on its own so row locks
are short and recalls keep answering during a run; the run row is written in its own transactions so
a failed run still records its error. A lock per job keeps two runs of it from running at
once, in one process or several (a PostgreSQL advisory lock, a file lock beside an SQLite
database: services/repositories/dialect.py); the second is recorded as ``skipped``.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from models import JobRun
from services.core.clock import Clock
from services.core.db import Database
from services.core.metrics import RESCORE_ROWS, RESCORE_RUNS, RESCORE_SECONDS
from services.core.progress import NO_PROGRESS, Progress
from services.core.settings import Settings
from services.embeddings.service import Embeddings, source_hash
from services.embeddings.vectors import Vector
from services.repositories.dialect import embed_lock, rescore_lock
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

    Memories are taken newest first, ``embedding_backfill_batch`` at a time: read in one
    short unit of work, embedded with no transaction open (a slow provider holds no
    lock), stored in another. A write committed during the run (the process's
    ``embeddings.backfill`` nudges, services/embeddings/nudges.py) sends the next read
    back to the newest memory, so a run ends only once a read found nothing and no write
    came after it. A memory whose vector another model made counts as missing, so a
    change of provider or model re-embeds everything. A failing provider ends the run as
    ``failed`` with what it had stored; the next run goes on from there.

    One run at a time across every process on the database (``embed_lock``); another is
    ``skipped``. A skipped run that a write of this process is waiting for is not
    recorded: the nudges ask for another ``EMBEDDING_BACKFILL_DELAY`` later, until the
    lock is free, so that write is read.
    """
    nudges = embeddings.backfill
    with nudges.run():
        async with embed_lock(db.engine) as acquired:
            if not acquired:
                return await _skipped_backfill(
                    db, clock, trigger, user_id, record=not nudges.pending
                )
            return await _backfill(db, settings, clock, embeddings, user_id, trigger, progress)


async def _skipped_backfill(
    db: Database, clock: Clock, trigger: str, user_id: str | None, *, record: bool
) -> JobRun:
    now = clock()
    log.info("embedding backfill skipped: another run holds the lock")
    run = JobRun(
        job=EMBED_JOB,
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


async def _backfill(
    db: Database,
    settings: Settings,
    clock: Clock,
    embeddings: Embeddings,
    user_id: str | None,
    trigger: str,
    progress: Progress,
) -> JobRun:
    nudges = embeddings.backfill
    async with db.unit_of_work() as session:
        run = await JobRunRepository(session).start(EMBED_JOB, trigger, user_id, clock())
    rows, before = 0, None
    status, error = "succeeded", None
    progress.start(None)  # how many lack a vector is only known by reading them all
    try:
        nudges.take()  # every write committed until now, the first read sees
        while True:
            async with db.unit_of_work() as session:
                batch = await EmbeddingRepository(session).unembedded(
                    embeddings.model, before, settings.embedding_backfill_batch, user_id
                )
                texts = await embeddings.texts(session, batch)
            if batch:
                before = batch[-1].memory_id
                vectors = await embeddings.embed(texts, seconds=settings.embedding_backfill_timeout)
                by_user: dict[str, list[tuple[int, Vector, str]]] = {}
                for item, vector, text in zip(batch, vectors, texts, strict=True):
                    by_user.setdefault(item.user_id, []).append((item.memory_id, vector, text))
                # Stored only where the memory still has the content read above: an edit
                # or a delete since wins (and an edit's nudge brings its memory back).
                contents = {item.memory_id: item.content for item in batch}
                async with db.unit_of_work() as session:
                    for owner, made in by_user.items():
                        rows += await embeddings.store(
                            session, owner, made, clock(), contents=contents
                        )
                progress.advance(len(batch))
            if nudges.take():
                before = None  # a write committed meanwhile: from the newest again
            elif not batch:
                break
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


@dataclass
class VectorCheck:
    """What ``jarvis-memory embed --verify`` found among the current model's vectors."""

    model: str
    checked: int = 0
    matching: int = 0
    # (user, memory id) of vectors whose memory's text (or a turn's earlier turns) changed
    stale: list[tuple[str, int]] = field(default_factory=list)
    unknown: int = 0  # stored before vectors recorded their source


async def verify_vectors(
    db: Database, settings: Settings, embeddings: Embeddings, *, user_id: str | None = None
) -> VectorCheck:
    """Compare every vector of the current model (or one user's) with the text its memory
    would be embedded as now: the hash stored with the vector against the hash of that
    text, a batch of ``embedding_backfill_batch`` memories per reader unit of work."""
    check = VectorCheck(embeddings.model)
    after = 0
    while True:
        async with db.reader() as session:
            found = await EmbeddingRepository(session).sources(
                embeddings.model, after, settings.embedding_backfill_batch, user_id
            )
            texts = await embeddings.texts(session, [item for item, _ in found])
        if not found:
            return check
        after = found[-1][0].memory_id
        for (item, stored), text in zip(found, texts, strict=True):
            check.checked += 1
            if stored is None:
                check.unknown += 1
            elif stored == source_hash(text):
                check.matching += 1
            else:
                check.stale.append((item.user_id, item.memory_id))
