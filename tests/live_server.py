"""The real server as its own process on a loopback port, on a fresh database.

Tests of what talks to the service over HTTP (the MCP endpoint, the Python client) run
against this: uvicorn with the app built from the environment, as ``serve`` builds it.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.db_backends import migrated_copy
from tests.timing import scaled

SERVICE_KEY = "test-service-key"
ADMIN_KEY = "test-admin-key"


@dataclass(frozen=True)
class LiveServer:
    """Where the server listens, its database and its keys."""

    url: str
    database_url: str
    service_key: str = SERVICE_KEY
    admin_key: str = ADMIN_KEY


def free_port() -> int:
    """A port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def server_env(database_url: str) -> dict[str, str]:
    """The environment the server (or the stdio MCP server) starts with."""
    return {
        **os.environ,
        "DATABASE_URL": database_url,
        "SCHEDULER_ENABLED": "false",
        "FREEZE_STARTUP_HEAP": "false",
        "JARVIS_API_KEYS": SERVICE_KEY,
        "JARVIS_ADMIN_KEYS": ADMIN_KEY,
    }


@contextlib.contextmanager
def running_server(database_url: str, cwd: Path) -> Iterator[LiveServer]:
    """uvicorn serving the app on ``database_url`` until the block ends."""
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "api.app:app_from_environment",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=server_env(database_url),
        cwd=cwd,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=url) as http:
            for _ in range(int(scaled(600))):
                try:
                    if http.get("/healthz", timeout=scaled(5)).status_code == 200:
                        break
                except httpx.TransportError:
                    assert server.poll() is None, "the server exited"
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        server.wait(timeout=0.1)
            else:
                raise AssertionError("the server never answered /healthz")
        yield LiveServer(url, database_url)
    finally:
        server.terminate()
        server.wait(timeout=scaled(30))


@contextlib.asynccontextmanager
async def migrated_database(backend: str, tmp: Path) -> AsyncIterator[str]:
    """A fresh database of ``backend`` at the migrations' head (a copy of one migrated
    once per process); dropped afterwards."""
    async with migrated_copy(backend, tmp) as url:
        yield url
