"""Two rescoring runs on one SQLite database never both run: the
second, in another process or the same one, is recorded as ``skipped``; a holder that
dies leaves no stale lock. Synchronised by files, never by sleeping."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from services.core.db import build_engine
from services.core.schema import ROOT
from services.repositories.dialect.seam import rescore_lock
from tests.db_backends import fresh_database, migrated_copy
from tests.timing import scaled, until


def _holder(url: str, tmp_path: Path) -> tuple[subprocess.Popen[bytes], Path, Path]:
    held, release = tmp_path / "held", tmp_path / "release"
    held.unlink(missing_ok=True)
    release.unlink(missing_ok=True)
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.services.scoring.hold_rescore_lock", url, held, release],
        cwd=ROOT,
    )
    return process, held, release


def _announced(held: Path) -> str:
    return held.read_text() if held.exists() else ""


async def _wait_held(held: Path) -> str:
    """What the other process announced once it has the lock (or found it taken)."""

    async def written() -> bool:
        return _announced(held) != ""

    await until(written, "the other process holds the rescoring lock", seconds=60)
    return _announced(held)


async def _cli_rescore(url: str) -> str:
    """``jarvis-memory rescore`` in a process of its own; the run's status."""
    env = {**os.environ, "DATABASE_URL": url, "SCHEDULER_ENABLED": "false"}
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "api.cli.main", "rescore", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(120),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["status"])


async def test_a_run_in_another_process_is_skipped_while_one_holds_the_lock(
    tmp_path: Path,
) -> None:
    async with migrated_copy("sqlite", tmp_path) as url:
        process, held, release = _holder(url, tmp_path)
        try:
            assert await _wait_held(held) == "acquired"
            assert await _cli_rescore(url) == "skipped"
        finally:
            release.touch()
            assert await asyncio.to_thread(process.wait, scaled(60)) == 0
        assert await _cli_rescore(url) == "succeeded"


async def test_a_holder_killed_mid_run_leaves_no_stale_lock(tmp_path: Path) -> None:
    async with migrated_copy("sqlite", tmp_path) as url:
        process, held, _ = _holder(url, tmp_path)
        assert await _wait_held(held) == "acquired"
        process.send_signal(signal.SIGKILL)
        assert await asyncio.to_thread(process.wait, scaled(60)) == -signal.SIGKILL
        assert await _cli_rescore(url) == "succeeded"


async def test_two_runs_in_one_process_exclude_each_other(tmp_path: Path) -> None:
    async with fresh_database("sqlite", tmp_path) as url:
        engine = build_engine(url)
        try:
            async with rescore_lock(engine) as first, rescore_lock(engine) as second:
                assert (first, second) == (True, False)
            async with rescore_lock(engine) as again:
                assert again
        finally:
            await engine.dispose()
