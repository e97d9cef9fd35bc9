"""``jarvis-memory serve --workers N`` on PostgreSQL: real worker processes on one port."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from api.cli.main import main
from api.server.workers import MIN_UPTIME, reuse_port_socket, serve_workers
from bench.cpu import TICKS_PER_SECOND, children
from bench.footprint import process_memory_mib
from tests.db_backends import fresh_database, postgres_server_url

ROOT = Path(__file__).resolve().parents[2]
STARTED = b"Application startup complete."

pytestmark = pytest.mark.skipif(
    postgres_server_url() is None, reason="several workers need PostgreSQL"
)


def _worker_pids(pid: int) -> list[int]:
    """Children of ``pid`` that multiprocessing spawned as workers (a resource tracker
    may run beside them)."""
    return [c for c in children(pid) if b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes()]


def _supervisor(pid: int) -> tuple[list[bytes], float, float]:
    """The supervisor's command line, its RSS, and its smallest worker's RSS (MiB)."""
    sizes = [process_memory_mib(p) for p in [pid, *_worker_pids(pid)]]
    rss = [size["rss"] for size in sizes if size is not None]
    assert len(rss) == len(sizes) > 1
    return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0"), rss[0], min(rss[1:])


def _age(pid: int) -> float:
    """Seconds since ``pid`` started, by its start time in /proc (clock ticks since boot)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / TICKS_PER_SECOND


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _connections_per_worker(workers: list[int], port: int) -> list[int]:
    """Established connections to ``port`` each worker holds, from /proc."""
    established: set[str] = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "01":
            established.add(fields[9])  # the socket's inode
    counts = []
    for pid in workers:
        links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
        inodes = {link[len("socket:[") : -1] for link in links if link.startswith("socket:[")}
        counts.append(len(inodes & established))
    return counts


@dataclass
class Served:
    process: asyncio.subprocess.Process
    base_url: str
    port: int
    log: Path


@asynccontextmanager
async def serving(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, workers: int = 2
) -> AsyncIterator[Served]:
    """A fresh, migrated PostgreSQL database served by ``jarvis-memory serve --workers``
    on a free port, once every worker has started; stopped (SIGTERM) at the end."""
    async with fresh_database("postgresql", tmp_path) as url:
        monkeypatch.setenv("DATABASE_URL", url)
        assert await asyncio.to_thread(main, ["migrate"]) == 0
        port = _free_port()
        log = tmp_path / "serve.log"
        with log.open("wb") as out:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                *("-m", "api.cli.main", "serve", "--port", str(port), "--workers", str(workers)),
                cwd=ROOT,
                env={**os.environ, "DATABASE_URL": url},
                stdout=out,
                stderr=out,
            )
        try:
            for _ in range(600):  # each worker warms jieba up before it listens
                if log.read_bytes().count(STARTED) >= workers or process.returncode is not None:
                    break
                await asyncio.sleep(0.1)
            assert log.read_bytes().count(STARTED) == workers, log.read_text()
            yield Served(process, f"http://127.0.0.1:{port}", port, log)
        finally:
            if process.returncode is None:
                process.terminate()
            await asyncio.wait_for(process.wait(), 60)


@pytest.fixture(scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Served]:
    """One server for the tests that only talk to it and look at its processes: starting
    one takes 10-20 s on the loaded 2-core machine (a clean stop is checked below, by
    the test that stops its own)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        async with serving(tmp_path_factory.mktemp("serve"), monkeypatch) as served:
            yield served


async def test_several_workers_serve_one_postgresql_database(shared: Served) -> None:
    workers = await asyncio.to_thread(_worker_pids, shared.process.pid)
    assert len(workers) == 2
    # The supervisor is python -m api.server.workers (exec'd by the CLI, same pid), without
    # the app's modules: about 25 MiB against a worker's 190 (it kept the CLI's
    # 100 MiB before).
    command, supervisor, smallest = await asyncio.to_thread(_supervisor, shared.process.pid)
    assert command[1:3] == [b"-m", b"api.server.workers"]
    assert 3 * supervisor < smallest, (supervisor, smallest)
    async with httpx.AsyncClient(base_url=shared.base_url, trust_env=False) as client:
        added = await client.post(
            "/v1/users/dana/memories", json={"content": "the spare key is in the shed"}
        )
        assert added.status_code == 201
    # A connection each, so the kernel hands them to either worker.
    for _ in range(10):
        async with httpx.AsyncClient(base_url=shared.base_url, trust_env=False) as client:
            found = await client.post("/v1/users/dana/recall", json={"query": "spare key"})
            assert found.status_code == 200
            assert [r["memory"]["id"] for r in found.json()["results"]] == [added.json()["id"]]


async def test_kept_alive_connections_are_spread_over_the_workers(shared: Served) -> None:
    # With one shared listening socket, the worker that woke first accepted every
    # connection of a burst and kept them (13/51 and 0/64 of the bench's 64 clients).
    async with AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=shared.base_url, trust_env=False)
            )
            for _ in range(32)
        ]
        # 32 connections opened at once, each kept alive after its request.
        answers = await asyncio.gather(*(c.get("/healthz") for c in clients))
        assert {a.status_code for a in answers} == {200}
        workers = await asyncio.to_thread(_worker_pids, shared.process.pid)
        counts = await asyncio.to_thread(_connections_per_worker, workers, shared.port)
        assert sum(counts) == 32
        # Hashed over two sockets: fewer than 4 of 32 on one worker has p < 1e-5.
        assert min(counts) >= 4, counts


async def test_a_dead_worker_is_replaced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with serving(tmp_path, monkeypatch) as served:
        first, second = await asyncio.to_thread(_worker_pids, served.process.pid)
        # Sooner, a death counts as a failed start. The supervisor times a worker from just
        # after creating it; a second of slack covers that and /proc's clock ticks. On a
        # loaded machine the worker is that old by the time it serves: no wait then.
        await asyncio.sleep(max(0.0, MIN_UPTIME + 1 - await asyncio.to_thread(_age, first)))
        os.kill(first, signal.SIGKILL)
        for _ in range(600):
            if served.log.read_bytes().count(STARTED) == 3:
                break
            await asyncio.sleep(0.1)
        replaced = await asyncio.to_thread(_worker_pids, served.process.pid)
        assert len(replaced) == 2
        assert second in replaced
        assert first not in replaced
        assert b"starting another" in served.log.read_bytes()
        async with httpx.AsyncClient(base_url=served.base_url, trust_env=False) as client:
            assert (await client.get("/healthz")).status_code == 200
    # SIGTERM stops the workers (the replacement too) and the supervisor, cleanly.
    assert served.process.returncode == 0
    assert served.log.read_bytes().count(b"Finished server process") == 2


def test_workers_that_cannot_start_stop_the_server() -> None:
    # No restart loop: a worker dying at startup stops the others, exit status 1.
    holder = reuse_port_socket("127.0.0.1", 0)
    assert serve_workers("tests.cli.no_such_module:app", holder, 2) == 1
    assert holder.fileno() == -1  # closed: the port is free again


def test_a_port_in_use_is_refused_at_once(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", postgres_server_url() or "")
    with socket.socket() as taken:  # another program's socket, without SO_REUSEPORT
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port), "--workers", "2"]) == 2
    assert f"cannot bind 127.0.0.1:{port}" in capsys.readouterr().err


def test_reuse_port_sockets_share_a_port() -> None:
    with reuse_port_socket("127.0.0.1", 0) as holder:
        port = holder.getsockname()[1]
        with reuse_port_socket("127.0.0.1", port) as worker:
            worker.listen()
            assert worker.getsockname()[1] == port
            assert worker.proto == socket.IPPROTO_TCP  # so asyncio sets TCP_NODELAY
