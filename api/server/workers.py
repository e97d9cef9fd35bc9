"""Several server processes on one port, each listening on a socket of its own.

``jarvis-memory serve --workers N`` first ran uvicorn's own multi-process mode: N workers
accepting from one shared listening socket. Under a client that keeps its connections
alive (the bench's 64 clients, a chat frontend's pool), the worker that wakes first
accepts every connection waiting in the queue (asyncio accepts up to the backlog, 2048,
per wake-up), and keeps them: the bench's load at tenant-10k found its 64 connections
split 13/51 or 0/64 between two workers, so one process did most of
the work while the other idled.

Here every worker binds its own socket to the port with ``SO_REUSEPORT``, and the kernel
spreads new connections over the listening sockets by a hash of each connection's
addresses and ports: about evenly, and never to a worker that is not listening yet. The
supervisor holds the port bound (not listening, so it is handed no connection) from
before the first worker starts, so a port taken by another program fails at once and
port 0 names one port for all workers.

The supervisor replaces a worker that dies, as uvicorn's does, unless it died while
starting (then it stops the others and exits 1: restarting would only loop).

``exec_supervisor`` turns the calling process (``jarvis-memory serve``, the bench's
server) into the supervisor by exec'ing ``python -m api.server.workers``, which imports uvicorn
and nothing of the app. The CLI had imported every service (SQLAlchemy, FastAPI, jieba:
about 100 MiB of RSS); a supervisor that kept them held that memory for as long as the
workers served, and did nothing with it.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing
import os
import signal
import socket
import sys
import time
from collections.abc import Sequence
from multiprocessing.connection import wait
from types import FrameType
from typing import Any, NoReturn

import uvicorn

log = logging.getLogger("uvicorn.error")

# How long a worker may take to finish its requests once asked to stop.
STOP_SECONDS = 30.0
# A worker that dies sooner after its start failed to start (jieba's warm-up takes ~2 s).
MIN_UPTIME = 10.0


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port`` with ``SO_REUSEPORT``, not yet listening.

    The protocol is named (IPPROTO_TCP): asyncio sets TCP_NODELAY only on connections
    whose socket says so, and accepted connections inherit it (bench/server_main.py).
    """
    family, _, _, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
    except OSError:
        sock.close()
        raise
    return sock


def _worker(host: str, port: int, factory: str, log_level: str) -> None:
    """One worker process: its own socket on the port, its own app, loop and pool."""
    sock = reuse_port_socket(host, port)
    # The factory is imported here, in the worker: an app cannot be handed to a process.
    from api.server.http_protocol import JsonErrorsH11Protocol  # the worker's, not the supervisor's

    config = uvicorn.Config(
        factory, factory=True, log_level=log_level, http=JsonErrorsH11Protocol, **_logging()
    )
    uvicorn.Server(config).run(sockets=[sock])


def _logging() -> dict[str, Any]:
    """uvicorn's logging options for LOG_FORMAT (api/observability/request_logging.py)."""
    from api.observability.request_logging import log_config
    from services.core.settings import Settings

    log_format = Settings().log_format
    return {"log_config": log_config(log_format), "access_log": log_format != "json"}


def _stop(workers: list[multiprocessing.process.BaseProcess]) -> None:
    """SIGTERM the workers still running (uvicorn finishes its requests), then wait."""
    for worker in workers:
        if worker.is_alive():
            worker.terminate()
    for worker in workers:
        worker.join(STOP_SECONDS)
        if worker.is_alive():
            worker.kill()
            worker.join()


def serve_workers(
    factory: str, holder: socket.socket, workers: int, log_level: str = "info"
) -> int:
    """Run ``workers`` processes serving the app ``factory`` ("module:function") on the
    port ``holder`` is bound to, until SIGTERM or SIGINT (exit 0).

    A worker that dies after running ``MIN_UPTIME`` seconds is replaced. One that dies
    sooner is failing to start (an import, a setting): the others are stopped and the
    exit status is 1, rather than a loop of restarts.
    """
    host, port = holder.getsockname()[:2]
    # Configures uvicorn's logging (LOG_FORMAT), here too.
    uvicorn.Config(factory, log_level=log_level, **_logging())
    context = multiprocessing.get_context("spawn")
    running: list[tuple[multiprocessing.process.BaseProcess, float]] = []
    stopping = False

    def start() -> None:
        worker = context.Process(target=_worker, args=(host, port, factory, log_level))
        worker.start()
        running.append((worker, time.monotonic()))

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        log.info("stopping %d workers (%s)", workers, signal.Signals(signum).name)
        for worker, _ in running:
            if worker.is_alive():
                worker.terminate()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    failed = False
    try:
        for _ in range(workers):
            start()
        log.info("serving on %s:%d with %d workers (SO_REUSEPORT)", host, port, workers)
        while not stopping and not failed:
            wait([worker.sentinel for worker, _ in running])
            for worker, since in [entry for entry in running if not entry[0].is_alive()]:
                if stopping:
                    break
                running.remove((worker, since))
                worker.join()
                if time.monotonic() - since < MIN_UPTIME:
                    log.error(
                        "worker %s exited (%s) at startup; stopping", worker.pid, worker.exitcode
                    )
                    failed = True
                    break
                log.warning("worker %s exited (%s); starting another", worker.pid, worker.exitcode)
                start()
        _stop([worker for worker, _ in running])
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        holder.close()
    return 1 if failed else 0


def exec_supervisor(
    factory: str, holder: socket.socket, workers: int, log_level: str = "info"
) -> NoReturn:
    """Replace this process (same pid) by ``python -m api.server.workers``, which runs
    ``serve_workers`` on ``holder``'s port: the socket is kept open across the exec."""
    holder.set_inheritable(True)
    # exec discards what the buffers still hold.
    sys.stdout.flush()
    sys.stderr.flush()
    argv = [sys.executable, "-m", "api.server.workers", factory, str(holder.fileno())]
    os.execv(sys.executable, [*argv, "--workers", str(workers), "--log-level", log_level])


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m api.server.workers FACTORY FD``: supervise workers on the bound socket ``FD``."""
    parser = argparse.ArgumentParser(prog="python -m api.server.workers", description=__doc__)
    parser.add_argument("factory", help='the app factory, "module:function"')
    parser.add_argument("fd", type=int, help="a bound TCP socket inherited from the caller")
    parser.add_argument("--workers", type=int, required=True)
    parser.add_argument("--log-level", default="info")
    args = parser.parse_args(argv)
    holder = socket.socket(fileno=args.fd)
    return serve_workers(args.factory, holder, args.workers, args.log_level)


if __name__ == "__main__":
    sys.exit(main())
