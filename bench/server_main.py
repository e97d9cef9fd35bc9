"""``python -m bench.server_main --now ISO``: the real app under uvicorn, for the load.

bench/server.py starts this as a subprocess so that the server has an event loop and
an RSS of its own. It serves ``api.app.create_app`` exactly as ``jarvis-memory serve``
does (same uvicorn defaults and log level; logs go to the file the parent gives as
stderr) with the bench's settings (auth off, the scheduler off unless
``BENCH_SCHEDULER=true``), the database from
``DATABASE_URL`` and the bench's fixed clock. The kernel picks a free loopback port; it
is printed on stdout as the only line, so parallel runs never collide.

With ``--workers N`` (N > 1) it serves as ``jarvis-memory serve --workers N`` does
(api/server/workers.py): it becomes the supervisor (an exec, so the RSS summed over the server's
processes is the deployment's) of N worker processes, each listening on the port with a
socket of its own, building its app with ``bench_app``, with its own event loop and pool.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
from datetime import datetime

import uvicorn
from fastapi import FastAPI

from api.app import create_app
from api.server.workers import exec_supervisor, reuse_port_socket
from bench.config import BenchClock, bench_settings

HOST = "127.0.0.1"
NOW_VARIABLE = "BENCH_NOW"  # the clock, for worker processes
# "true": the scheduled jobs run in the server (the embedding backfill, bench/flood.py).
SCHEDULER_VARIABLE = "BENCH_SCHEDULER"


def listening_socket() -> socket.socket:
    """A loopback TCP socket on a port the kernel picks, for uvicorn (or the workers)
    to listen on.

    The protocol is named, not left 0: asyncio sets TCP_NODELAY only on connections
    whose socket says IPPROTO_TCP, and an accepted connection inherits the listener's
    protocol number. With 0 every response went out under Nagle's algorithm, and
    ``/healthz`` under the bench's 64 clients served about 1,250 requests a second at a
    p50 of 48 ms, against about 2,400 at 24 ms for ``jarvis-memory serve`` (whose socket
    asyncio makes), alternating, two rounds each.
    """
    return reuse_port_socket(HOST, 0)  # names IPPROTO_TCP; SO_REUSEPORT for the workers


def bench_app() -> FastAPI:
    """The bench's app from the environment: ``DATABASE_URL``, the clock ``BENCH_NOW`` and
    whether the scheduler runs, ``BENCH_SCHEDULER``."""
    now = datetime.fromisoformat(os.environ[NOW_VARIABLE])
    scheduler = os.environ.get(SCHEDULER_VARIABLE) == "true"
    settings = bench_settings(os.environ["DATABASE_URL"], scheduler=scheduler)
    return create_app(settings, clock=BenchClock(now))


def main(argv: list[str] | None = None) -> int:
    """Bind, announce the port, serve until SIGTERM."""
    parser = argparse.ArgumentParser(prog="python -m bench.server_main", description=__doc__)
    parser.add_argument("--now", required=True, help="the service clock, ISO 8601 with zone")
    parser.add_argument(
        "--workers", type=int, default=1, help="server processes (api/server/workers.py above 1)"
    )
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error("--workers must be at least 1")
    os.environ[NOW_VARIABLE] = args.now  # inherited by worker processes
    sock = listening_socket()
    print(sock.getsockname()[1], flush=True)
    # The parent reads only that line: uvicorn's access log (which goes to stdout) must
    # go to the log file instead, or it fills the pipe and the server blocks mid-load.
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    if args.workers > 1:
        exec_supervisor("bench.server_main:bench_app", sock, args.workers)
    # uvicorn listens on the socket only once the lifespan (jieba warm-up) has finished.
    uvicorn.Server(uvicorn.Config(bench_app(), log_level="info")).run(sockets=[sock])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
