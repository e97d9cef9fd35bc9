"""The embedding backfill job and the vectors' check: thin adapters that open units of
work and call the embeddings service.

With embeddings configured the scheduler (services/scoring/scheduler.py), the stdio MCP
server's loop (services/embeddings/backfill.py) and ``jarvis-memory embed`` call
:func:`run_embedding_backfill`; ``jarvis-memory embed --verify`` calls
:func:`verify_vectors`. A lock keeps two runs from running at once, in one process or
several (a PostgreSQL advisory lock, a file lock beside an SQLite database:
services/repositories/dialect/seam.py); the second is ``skipped``. The run rows, the lease
that runs it once per interval among processes and the abandoned runs are
services/job_runs/bookkeeping.py's.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

from models import JobRun
from services.core.clock import Clock
from services.core.db import Database
from services.core.progress import NO_PROGRESS, Progress
from services.core.settings import Settings
from services.embeddings.backfill_split import embed_apart
from services.embeddings.service import Embeddings, source_hash
from services.embeddings.vectors import Vector
from services.job_runs.bookkeeping import claim, skipped
from services.repositories.dialect.seam import embed_lock
from services.repositories.embeddings import EmbeddingRepository, FailedText, Unembedded
from services.repositories.jobs import JobRunRepository

log = logging.getLogger(__name__)

EMBED_JOB = "embed"


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
    change of provider or model re-embeds everything. A failing batch is split and
    retried smaller, and a text the provider will not embed alone is marked and skipped
    (the run's ``failures``; :func:`_embed_batch`); a provider that does not answer at
    all ends the run as ``failed`` with what it had stored, and the next run goes on
    from there.

    One run at a time across every process on the database (``embed_lock``); another is
    ``skipped``. A skipped run that a write of this process is waiting for is not
    recorded: the nudges ask for another ``EMBEDDING_BACKFILL_DELAY`` later, until the
    lock is free, so that write is read. With ``once_per`` (the scheduler's interval) a
    run is skipped, unrecorded, when a scheduled run already started in the current
    interval, unless a write of this process is waiting for it
    (:func:`services.job_runs.bookkeeping.claim`).
    """
    nudges = embeddings.backfill
    with nudges.run():
        async with embed_lock(db.engine) as acquired:
            if not acquired:
                log.info("embedding backfill skipped: another run holds the lock")
                return await skipped(
                    db, clock, EMBED_JOB, trigger, user_id, record=not nudges.pending
                )
            # A write of this process waiting for its vector is never left to the lease.
            lease = None if nudges.pending else once_per
            run = await claim(db, clock, EMBED_JOB, trigger, user_id, lease)
            if run is None:
                return await skipped(db, clock, EMBED_JOB, trigger, user_id, record=False)
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
    rows, failures, before = 0, 0, None
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
                stored, failed = await _embed_batch(db, settings, clock, embeddings, batch, texts)
                rows, failures = rows + stored, failures + failed
                progress.advance(len(batch))
            if nudges.take():
                before = None  # a write committed meanwhile: from the newest again
            elif not batch:
                break
    except Exception as exc:
        log.warning("embedding backfill run %s failed after %d vectors: %s", run.id, rows, exc)
        status, error = "failed", f"{type(exc).__name__}: {exc}"
    async with db.unit_of_work() as session:
        stored_run = await JobRunRepository(session).get(run.id)
        assert stored_run is not None
        stored_run.status, stored_run.error, stored_run.rows = status, error, rows
        stored_run.failures = failures
        stored_run.finished_at = clock()
    log.info(
        "embedding backfill run %s %s: %d vectors, %d texts marked unembeddable (%s)",
        run.id,
        status,
        rows,
        failures,
        embeddings.model,
    )
    return stored_run


async def _embed_batch(
    db: Database,
    settings: Settings,
    clock: Clock,
    embeddings: Embeddings,
    batch: Sequence[Unembedded],
    texts: Sequence[str],
) -> tuple[int, int]:
    """Embed one batch and store it; (vectors stored, texts marked unembeddable).

    A memory whose text the provider already failed to embed, unchanged since, is left
    out. A failing batch is split down to the single text (services/embeddings/
    backfill_split.py): the others get their vectors, a text that fails alone while the
    provider answers is marked with its hash and skipped by later runs until it changes.
    """
    todo = [
        (item, text)
        for item, text in zip(batch, texts, strict=True)
        if item.failed_hash != source_hash(text)
    ]
    if not todo:
        return 0, 0
    seconds = settings.embedding_backfill_timeout
    split = await embed_apart(
        [text for _, text in todo],
        lambda some: embeddings.embed(some, seconds=seconds),
        embeddings.embed,
    )
    made: dict[str, list[tuple[int, Vector, str]]] = {}
    failed: dict[str, list[FailedText]] = {}
    for i, (item, text) in enumerate(todo):
        vector = split.vectors[i]
        if vector is not None:
            made.setdefault(item.user_id, []).append((item.memory_id, vector, text))
        else:
            why = split.failed.get(i, "no vector")
            failed.setdefault(item.user_id, []).append(
                FailedText(item.memory_id, source_hash(text), why)
            )
            log.warning("memory %d of %s cannot be embedded: %s", item.memory_id, item.user_id, why)
    # Stored only where the memory still has the content read above: an edit or a delete
    # since wins (and an edit's nudge brings its memory back).
    contents = {item.memory_id: item.content for item, _ in todo}
    stored = marked = 0
    now = clock()
    async with db.unit_of_work() as session:
        for owner, vectors in made.items():
            stored += await embeddings.store(session, owner, vectors, now, contents=contents)
        repository = EmbeddingRepository(session)
        for owner, texts_failed in failed.items():
            marked += await repository.mark_failed(owner, embeddings.model, texts_failed, now)
    return stored, marked


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
