"""With auth off the app answers on loopback only, however it is served:
the guard is in the app, not only in ``jarvis-memory serve``."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys

import httpx
import pytest

from api.app import create_app
from services.core.db import Database
from services.core.settings import Settings
from tests.api.helpers import asgi_call
from tests.conftest import FakeClock
from tests.timing import lifespan, scaled

# A documentation address (RFC 5737): named as the server's, never sent anything.
NETWORK = ("192.0.2.10", 8000)


@pytest.mark.parametrize("path", ["/healthz", "/v1/users/u/memories", "/admin/stats"])
async def test_without_keys_a_request_on_a_network_interface_is_refused(
    db: Database, settings: Settings, clock: FakeClock, path: str
) -> None:
    app = create_app(settings, db=db, clock=clock)
    async with lifespan(app):
        status, body = await asgi_call(app, "GET", path, server=NETWORK)
        assert (status, body["error"]["code"]) == (403, "loopback_only")
        for local in (("127.0.0.1", 8000), ("::1", 8000), ("127.0.0.2", 8000)):
            status, _ = await asgi_call(app, "GET", "/healthz", server=local)
            assert status == 200


async def test_with_keys_a_network_interface_is_served_and_auth_decides(
    db: Database, settings: Settings, clock: FakeClock
) -> None:
    keyed = settings.model_copy(update={"jarvis_api_keys": ["k1"]})
    app = create_app(keyed, db=db, clock=clock)
    async with lifespan(app):
        assert (await asgi_call(app, "GET", "/healthz", server=NETWORK))[0] == 200
        status, body = await asgi_call(app, "GET", "/v1/users/u/memories", server=NETWORK)
        assert (status, body["error"]["code"]) == (401, "unauthorized")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def test_uvicorn_factory_on_all_interfaces_still_serves_loopback(
    tmp_path: os.PathLike[str],
) -> None:
    """The command that once exposed the service, for real: bound to 0.0.0.0 with no keys,
    a client on loopback is served (the refusal on other interfaces is the case above: no test sends
    traffic to an address outside loopback)."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path}/guard.db",
        "JARVIS_API_KEYS": "",
        "JARVIS_ADMIN_KEYS": "",
        "SCHEDULER_ENABLED": "false",
    }
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "--factory",
            "api.app:app_from_environment",
            "--host",
            "0.0.0.0",
            "--port",
            str(port),
            "--log-level",
            "warning",
        ],
        env=env,
        cwd=tmp_path,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
            status = 0
            for _ in range(int(scaled(600))):
                try:
                    status = http.get("/healthz", timeout=scaled(5)).status_code
                    break
                except httpx.TransportError:
                    assert server.poll() is None, "the server exited"
                    server_wait(server)
            assert status == 200
    finally:
        server.terminate()
        server.wait(timeout=scaled(30))


def server_wait(server: subprocess.Popen[bytes]) -> None:
    """Wait a little for the server to listen (or exit), without a bare sleep."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        server.wait(timeout=0.1)
