"""Scheduled work runs once per interval across processes, and a run whose process died
is marked failed by the next one.

Two "processes" are two Databases (engines), two Embeddings and two schedulers on one
database with real commits; their scheduled jobs are fired by the test at the times
their schedulers would fire them, on a fake clock. No test waits on the wall clock.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from apscheduler.job import Job
from sqlalchemy import select

from models import JobRun
from services.core.db import Database, build_engine
from services.core.settings import Settings
from services.embeddings.jobs import EMBED_JOB, run_embedding_backfill
from services.embeddings.providers import OpenAIEmbedder
from services.embeddings.service import Embeddings
from services.remembering.memory_service import MemoryService, NewMemory
from services.repositories.dialect.seam import embed_lock, rescore_lock
from services.repositories.jobs import ABANDONED, interval_start
from services.scoring.jobs import RESCORE_JOB, run_rescore
from services.scoring.scheduler import EMBED_START_JOB, build_scheduler
from services.text.analysis import TextAnalyzer
from tests.conftest import BACKENDS, FakeClock
from tests.providers import ANSWER_TIMEOUT, ProviderServer


@pytest.fixture(params=BACKENDS)
async def shared_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A database of its own that two "processes" open (real commits, dropped after)."""
    from tests.db_backends import migrated_copy

    async with migrated_copy(request.param, tmp_path) as url:
        yield url


def scheduled_settings(settings: Settings, provider: ProviderServer) -> Settings:
    return settings.model_copy(
        update={
            "embedding_provider": "openai",
            "embedding_base_url": provider.base_url,
            "embedding_model": "toy",
            "embedding_timeout": ANSWER_TIMEOUT,
            "embedding_at_write": False,
            "rescore_interval": 300,
            "embedding_backfill_interval": 600,
        }
    )


def embeddings_for(settings: Settings) -> Embeddings:
    assert settings.embedding_base_url is not None
    return Embeddings(OpenAIEmbedder(settings.embedding_base_url, "toy", timeout=10), settings)


async def fire(job: Job) -> Any:
    """What the scheduler does when ``job`` is due."""
    return await job.func(*job.args, **job.kwargs)


async def test_two_processes_run_each_scheduled_job_once_per_interval(
    shared_url: str,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    configured = scheduled_settings(settings, provider)
    dbs = [Database(build_engine(shared_url)) for _ in "ab"]
    try:
        # A third party (the CLI, say) writes: no scheduled process has a write waiting.
        writer = embeddings_for(configured)
        async with dbs[0].unit_of_work() as session:
            service = MemoryService(session, configured, analyzer, clock, writer)
            await service.add_many("u", [NewMemory(content=f"note {i}") for i in range(5)])
        schedulers = [
            build_scheduler(db, configured, clock, embeddings_for(configured)) for db in dbs
        ]
        jobs = {
            (name, i): s.get_job(name)
            for i, s in enumerate(schedulers)
            for name in (RESCORE_JOB, EMBED_JOB)
        }
        assert all(job is not None for job in jobs.values())
        intervals = {RESCORE_JOB: 300, EMBED_JOB: 600}
        start = clock.now
        # Each process fires each job once per interval, at its own offset: process a
        # early in the interval, b later (and both at once, racing for the lock, in one
        # interval of each job).
        firings: list[tuple[datetime, str, list[int]]] = []
        for name, every in intervals.items():
            for n in range(3600 // every):
                base = start + timedelta(seconds=n * every)
                if n == 1:
                    firings.append((base + timedelta(seconds=7), name, [0, 1]))
                else:
                    firings.append((base + timedelta(seconds=7), name, [0]))
                    firings.append((base + timedelta(seconds=every * 0.6), name, [1]))
        for when, name, which in sorted(firings, key=lambda f: (f[0], f[1])):
            clock.now = when
            await asyncio.gather(*(fire(jobs[(name, i)]) for i in which))
        clock.now = start + timedelta(hours=1)

        async with dbs[1].unit_of_work() as session:
            runs = list((await session.execute(select(JobRun).order_by(JobRun.id))).scalars())
        for name, every in intervals.items():
            ran = Counter(
                interval_start(run.started_at, every)
                for run in runs
                if run.job == name and run.status != "skipped"
            )
            assert ran == Counter(
                start + timedelta(seconds=n * every) for n in range(3600 // every)
            ), name
            assert all(run.status in ("succeeded", "skipped") for run in runs if run.job == name)
        # The one embedding backfill embedded every note once, whichever process ran it.
        embedded = [r for r in runs if r.job == EMBED_JOB and r.status == "succeeded"]
        assert sum(r.rows for r in embedded) == 5
    finally:
        for db in dbs:
            await db.dispose()


async def test_a_write_waiting_and_the_run_after_start_are_not_leased(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    configured = scheduled_settings(settings, provider)
    embeddings = embeddings_for(configured)
    scheduler = build_scheduler(db, configured, clock, embeddings)
    at_start, every = scheduler.get_job(EMBED_START_JOB), scheduler.get_job(EMBED_JOB)
    assert at_start is not None
    assert every is not None
    assert "once_per" not in at_start.kwargs  # a process started with a new model embeds
    assert every.kwargs["once_per"] == configured.embedding_backfill_interval
    assert (await fire(at_start)).status == "succeeded"
    assert (await fire(every)).status == "skipped"  # this interval's run was the one above
    async with db.unit_of_work() as session:
        service = MemoryService(session, configured, analyzer, clock, embeddings)
        await service.add("u", NewMemory(content="a write waits for its vector"))
    done = await fire(every)  # the write's nudge: run now, lease or not
    assert (done.status, done.rows) == ("succeeded", 1)
    async with db.unit_of_work() as session:
        statuses = (
            await session.execute(
                select(JobRun.status).where(JobRun.job == EMBED_JOB).order_by(JobRun.id)
            )
        ).scalars()
        assert list(statuses) == ["succeeded", "succeeded"]  # the lease's skip: no row


async def left_running(db: Database, job: str, started: datetime) -> int:
    """A run row as a process killed mid-run leaves it."""
    async with db.unit_of_work() as session:
        run = JobRun(job=job, trigger="schedule", status="running", started_at=started)
        session.add(run)
        await session.flush()
        return run.id


async def status_of(db: Database, run_id: int) -> tuple[str, str | None, datetime | None]:
    async with db.unit_of_work() as session:
        run = await session.get(JobRun, run_id)
        assert run is not None
        await session.refresh(run)
        return run.status, run.error, run.finished_at


async def test_a_run_left_running_is_marked_failed_by_the_next_rescore(
    db: Database, settings: Settings, clock: FakeClock
) -> None:
    dead = await left_running(db, RESCORE_JOB, clock.now - timedelta(hours=3))
    # While another run holds the lock, nothing proves the row's process is gone.
    async with rescore_lock(db.engine) as held:
        assert held
        skipped = await run_rescore(db, settings, clock)
        assert skipped.status == "skipped"
    assert (await status_of(db, dead))[0] == "running"
    run = await run_rescore(db, settings, clock, once_per=settings.rescore_interval)
    assert run.status == "succeeded"  # the dead run does not hold this interval's lease
    assert await status_of(db, dead) == ("failed", ABANDONED, clock.now)


async def test_a_run_left_running_is_marked_failed_by_the_next_backfill(
    db: Database, settings: Settings, clock: FakeClock, provider: ProviderServer
) -> None:
    configured = scheduled_settings(settings, provider)
    embeddings = embeddings_for(configured)
    dead = await left_running(db, EMBED_JOB, clock.now - timedelta(minutes=5))
    other = await left_running(db, RESCORE_JOB, clock.now - timedelta(minutes=5))
    async with embed_lock(db.engine) as held:
        assert held
        assert (await run_embedding_backfill(db, configured, clock, embeddings)).status == (
            "skipped"
        )
    assert (await status_of(db, dead))[0] == "running"
    run = await run_embedding_backfill(db, configured, clock, embeddings, once_per=600)
    assert run.status == "succeeded"
    assert await status_of(db, dead) == ("failed", ABANDONED, clock.now)
    assert (await status_of(db, other))[0] == "running"  # another job's lock, not held


async def test_a_database_in_memory_has_a_lock_per_job_too(settings: Settings) -> None:
    memory = Database(build_engine("sqlite+aiosqlite://"))
    try:
        async with (
            rescore_lock(memory.engine) as first,
            rescore_lock(memory.engine) as second,
            embed_lock(memory.engine) as third,
        ):
            assert (first, second, third) == (True, False, True)
        async with rescore_lock(memory.engine) as again:
            assert again
    finally:
        await memory.dispose()
