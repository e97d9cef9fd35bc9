"""Scheduled jobs: thin adapters that open units of work and call the services.

The scheduler, ``jarvis-memory rescore`` (cron) and ``POST /admin/jobs/rescore`` all
call :func:`run_rescore`; with embeddings configured the scheduler and ``jarvis-memory
embed`` call :func:`run_embedding_backfill`. Each id batch commits on its own so row locks
are short and recalls keep answering during a run; the run row is written in its own transactions so
a failed run still records its error. A lock per job keeps two runs of it from running at
once, in one process or several (a PostgreSQL advisory lock, a file lock beside an SQLite
database: services/repositories/dialect.py); the second is recorded as ``skipped``.

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
    once_per: float | None = None,
) -> JobRun:
    """Refresh impact counts and rescore every memory (or one user's); returns the run.

    A full run that succeeded also records the memories per level (``JobRun.levels``),
    which /metrics reports until the next one. With ``once_per`` (the scheduler's
    interval) the run is skipped, unrecorded, when a scheduled run already started in the
    current interval (:func:`_claim`).
    """
    started = time.perf_counter()
    rows = escalations = 0
    status, error = "succeeded", None
    async with rescore_lock(db.engine) as acquired:
        if not acquired:
            run = await _skipped(db, clock, RESCORE_JOB, trigger, user_id, record=True)
            RESCORE_RUNS.labels("skipped", trigger).inc()
            return run
        claimed = await _claim(db, clock, RESCORE_JOB, trigger, user_id, once_per)
        if claimed is None:
            RESCORE_RUNS.labels("skipped", trigger).inc()
            return await _skipped(db, clock, RESCORE_JOB, trigger, user_id, record=False)
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


async def _claim(
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


async def _skipped(
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


async def run_embedding_backfill(
    db: Database,
    settings: Settings,
    clock: Clock,
    embeddings: Embeddings,
    *,
    user_id: str | None = None,
    trigger: str = "schedule",
    progress: Progress = NO_PROGRESS,
    once_per: float | None = None,
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
    lock is free, so that write is read. With ``once_per`` (the scheduler's interval) a
    run is skipped, unrecorded, when a scheduled run already started in the current
    interval, unless a write of this process is waiting for it (:func:`_claim`).
    """
    nudges = embeddings.backfill
    with nudges.run():
        async with embed_lock(db.engine) as acquired:
            if not acquired:
                log.info("embedding backfill skipped: another run holds the lock")
                return await _skipped(
                    db, clock, EMBED_JOB, trigger, user_id, record=not nudges.pending
                )
            # A write of this process waiting for its vector is never left to the lease.
            lease = None if nudges.pending else once_per
            run = await _claim(db, clock, EMBED_JOB, trigger, user_id, lease)
            if run is None:
                return await _skipped(db, clock, EMBED_JOB, trigger, user_id, record=False)
            return await _backfill(db, settings, clock, embeddings, run, progress)


async def _backfill(
    db: Database,
    settings: Settings,
    clock: Clock,
    embeddings: Embeddings,
    run: JobRun,
    progress: Progress,
) -> JobRun:
    nudges = embeddings.backfill
    user_id = run.user_id
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
