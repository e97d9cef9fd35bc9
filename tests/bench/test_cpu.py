"""bench/cpu.py: CPU time per party, read from /proc, against real work."""

from __future__ import annotations

import os
import time

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from bench.cpu import CpuSampler, postgres_pids, process_cpu_ns, process_cpu_seconds
from tests.db_backends import postgres_server_url


def _burn(seconds: float) -> None:
    deadline = time.process_time() + seconds
    while time.process_time() < deadline:
        pass


def test_the_server_and_the_generator_are_charged_what_they_spent() -> None:
    # Here the "server" is this very process: whatever it burns is charged to both.
    sampler = CpuSampler(os.getpid(), database=False)
    before = sampler.snapshot()
    _burn(0.3)
    after = sampler.snapshot()
    assert before is not None
    assert after is not None
    spent = sampler.spent(before, after)
    assert set(spent) == {"server", "generator"}  # no database party for SQLite
    assert 0.25 <= spent["server"] <= 1.0
    assert 0.25 <= spent["generator"] <= 1.0


def test_a_missing_process_has_no_cpu_time() -> None:
    assert process_cpu_seconds(2**22 + 1) is None  # above the kernel's pid_max
    assert process_cpu_ns(2**22 + 1) is None


def test_the_scheduler_s_count_charges_what_the_process_spent() -> None:
    before = process_cpu_ns(os.getpid())
    _burn(0.3)
    after = process_cpu_ns(os.getpid())
    assert before is not None
    assert after is not None
    assert 0.25 <= (after - before) / 1e9 <= 1.0
    assert CpuSampler(2**22 + 1, database=False).snapshot() is None


@pytest.mark.skipif(
    postgres_server_url() is None or not postgres_pids(),
    reason="needs a PostgreSQL server on this machine",
)
async def test_the_database_is_charged_the_work_of_its_backends() -> None:
    engine = create_async_engine(postgres_server_url() or "")
    try:
        async with engine.connect() as conn:
            await conn.execute(text("SELECT 1"))  # connected before the first snapshot
            sampler = CpuSampler(os.getpid(), database=True)
            before = sampler.snapshot()
            started = time.process_time()
            await conn.execute(text("SELECT count(*) FROM generate_series(1, 5000000)"))
            after = sampler.snapshot()
            ours = time.process_time() - started
    finally:
        await engine.dispose()
    assert before is not None
    assert after is not None
    spent = sampler.spent(before, after)
    # Counting five million rows is the backend's work, not this process's.
    assert spent["database"] > 0.1
    assert spent["database"] > 5 * ours
