"""The load scenario's server: one ``bench.server_main`` subprocess, started and stopped.

The server runs in a process of its own so that its RSS is measured apart from the
bench and the load generator does not share its event loop.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
STARTUP_SECONDS = 120.0
STOP_SECONDS = 15.0
STARTED = "Application startup complete."  # what uvicorn logs once a process serves


@dataclass(frozen=True)
class Server:
    """A running server: its process id and where it listens."""

    pid: int
    base_url: str


def _tail(path: Path, lines: int = 20) -> str:
    text = path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""
    return "\n".join(text.splitlines()[-lines:])


def _started(log_path: Path) -> int:
    """How many of the server's processes have finished their lifespan's startup."""
    text = log_path.read_text(encoding="utf-8", errors="replace") if log_path.exists() else ""
    return text.count(STARTED)


async def _wait_ready(
    proc: asyncio.subprocess.Process, base_url: str, log_path: Path, workers: int
) -> None:
    """Poll ``/healthz`` until it answers 200 and every worker has started; fail with the
    log if the process dies. (A worker still warming up accepts no connection, so the
    first answer says nothing about the others: the load would meet fewer of them.)"""
    deadline = time.perf_counter() + STARTUP_SECONDS
    async with httpx.AsyncClient(base_url=base_url, trust_env=False, timeout=5.0) as client:
        while time.perf_counter() < deadline:
            if proc.returncode is not None:
                raise RuntimeError(f"bench server exited ({proc.returncode}):\n{_tail(log_path)}")
            try:
                if (await client.get("/healthz")).status_code == 200 and (
                    workers == 1 or _started(log_path) >= workers
                ):
                    return
            except httpx.TransportError:
                pass  # not listening yet: the lifespan is still warming up
            await asyncio.sleep(0.05)
    raise RuntimeError(f"bench server not ready after {STARTUP_SECONDS:.0f}s:\n{_tail(log_path)}")


async def _stop(proc: asyncio.subprocess.Process) -> None:
    """SIGTERM (uvicorn shuts down gracefully), then SIGKILL if it does not exit."""
    if proc.returncode is None:
        proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), STOP_SECONDS)
        except TimeoutError:
            proc.kill()
            await proc.wait()


@asynccontextmanager
async def running_server(
    database_url: str,
    now: datetime,
    log_path: Path,
    workers: int = 1,
    *,
    settings: dict[str, str] | None = None,
) -> AsyncIterator[Server]:
    """The real app serving ``database_url`` on a loopback port until the block ends, in
    ``workers`` uvicorn worker processes (``pid`` is then their supervisor's); ``settings``
    are more environment variables for it (the proxy's ``LLM_BASE_URL``)."""
    env = {**os.environ, **(settings or {}), "DATABASE_URL": database_url}
    with log_path.open("wb") as log:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "bench.server_main",
            "--now",
            now.isoformat(),
            "--workers",
            str(workers),
            cwd=ROOT,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
        )
        try:
            assert proc.stdout is not None
            line = await asyncio.wait_for(proc.stdout.readline(), STARTUP_SECONDS)
            if not line.strip():
                await proc.wait()
                raise RuntimeError(f"bench server exited ({proc.returncode}):\n{_tail(log_path)}")
            base_url = f"http://127.0.0.1:{int(line)}"
            await _wait_ready(proc, base_url, log_path, workers)
            yield Server(proc.pid, base_url)
        finally:
            await _stop(proc)
