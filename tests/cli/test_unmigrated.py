"""An unmigrated database is named as such, never a 500; the embedded
default lives in the user's data directory, so every folder starts the same store."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from alembic import command

from api.app import create_app
from api.cli.main import main
from services.core.db import Database
from services.core.health import migration_heads
from services.core.schema import alembic_config, migrate, scratch_postgres_database
from services.core.settings import Settings, default_sqlite_path
from tests.db_backends import postgres_server_url
from tests.timing import lifespan, scaled

HEAD = ",".join(sorted(migration_heads()))


async def _answers(url: str) -> tuple[httpx.Response, httpx.Response, httpx.Response]:
    settings = Settings(
        _env_file=None, database_url=url, scheduler_enabled=False, freeze_startup_heap=False
    )
    database = Database.from_settings(settings)
    app = create_app(settings, db=database)
    try:
        async with (
            lifespan(app),
            httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://test"
            ) as http,
        ):
            return (
                await http.get("/healthz"),
                await http.get("/readyz"),
                await http.post("/v1/users/u/memories", json={"content": "hello"}),
            )
    finally:
        await database.dispose()


async def test_an_empty_database_is_not_ready_and_writes_are_503_naming_the_command(
    tmp_path: Path,
) -> None:
    health, ready, write = await _answers(f"sqlite+aiosqlite:///{tmp_path / 'empty.db'}")
    assert health.status_code == 200  # the process is up
    assert ready.status_code == 503
    body = ready.json()
    assert body["database"].startswith("not migrated (no schema")
    assert "jarvis-memory migrate" in body["database"]
    assert body["pending_migrations"]
    assert body["pending_migrations"][-1].startswith(HEAD)
    assert write.status_code == 503
    assert write.json()["error"]["code"] == "not_ready"
    assert "jarvis-memory migrate" in write.json()["error"]["message"]


async def test_a_database_one_migration_behind_names_the_one_it_lacks(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'behind.db'}"
    await migrate(url)
    await asyncio.to_thread(command.downgrade, alembic_config(url), "-1")
    _, ready, write = await _answers(url)
    assert ready.status_code == 503
    assert ready.json()["revision"] != HEAD
    assert [p.split(" ")[0] for p in ready.json()["pending_migrations"]] == [HEAD]
    assert write.status_code == 503
    await migrate(url)
    _, ready, write = await _answers(url)
    assert (ready.status_code, write.status_code) == (200, 201)


def test_the_default_database_is_in_the_users_data_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    assert default_sqlite_path() == tmp_path / "jarvis-memory" / "jarvis_memory.db"
    monkeypatch.setenv("XDG_DATA_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_sqlite_path() == tmp_path / ".local/share/jarvis-memory/jarvis_memory.db"
    monkeypatch.chdir(tmp_path)
    assert Settings(_env_file=None).database_url.endswith(
        f"{tmp_path}/.local/share/jarvis-memory/jarvis_memory.db"
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _raw_request(port: int, line: str) -> tuple[bytes, bytes]:
    """Send a request line as raw UTF-8 bytes (no client would); the status line and body."""
    with socket.create_connection(("127.0.0.1", port), timeout=scaled(10)) as conn:
        conn.sendall(f"{line} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return head.split(b"\r\n")[0], body


@contextlib.contextmanager
def _serving(env: dict[str, str], cwd: Path) -> Iterator[httpx.Client]:
    """``jarvis-memory serve`` in ``cwd``, until it answers /healthz."""
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "api.cli.main", "serve", "--port", str(port)],
        env=env,
        cwd=cwd,
        stderr=subprocess.PIPE,
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=scaled(10)) as http:
            for _ in range(int(scaled(600))):
                try:
                    http.get("/healthz")
                    break
                except httpx.TransportError:
                    assert server.poll() is None, server.stderr.read() if server.stderr else ""
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        server.wait(timeout=0.1)
            yield http
    finally:
        server.terminate()
        server.communicate(timeout=scaled(30))


def test_serve_migrates_the_default_in_the_data_directory_not_the_working_one(
    tmp_path: Path,
) -> None:
    """One start (each is seconds of imports and jieba); that another folder resolves the
    same file is test_the_default_database_is_in_the_users_data_directory."""
    home, first = tmp_path / "home", tmp_path / "a"
    for folder in (home, first):
        folder.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "XDG_DATA_HOME", "JARVIS_API_KEYS", "JARVIS_ADMIN_KEYS")
    }
    env.update(HOME=str(home), SCHEDULER_ENABLED="false")
    with _serving(env, first) as http:
        assert http.get("/readyz").status_code == 200
        assert http.post("/v1/users/u/memories", json={"content": "kept"}).status_code == 201
        # While it runs: what uvicorn cannot parse is answered in the service's shape too.
        status, answer = _raw_request(http.base_url.port or 0, "GET /v1/users/中文/memories")
        assert status.startswith(b"HTTP/1.1 400"), status
        assert json.loads(answer)["error"]["code"] == "bad_request"
    assert (home / ".local/share/jarvis-memory/jarvis_memory.db").stat().st_size > 0
    assert list(first.iterdir()) == []


@pytest.mark.skipif(postgres_server_url() is None, reason="needs TEST_DATABASE_URL")
@pytest.mark.parametrize("command", ["serve", "add"])
async def test_serve_and_the_cli_refuse_an_unmigrated_postgresql_naming_the_command(
    command: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = postgres_server_url()
    assert server is not None
    argv = ["serve", "--port", str(_free_port())] if command == "serve" else ["add", "u", "hi"]
    async with scratch_postgres_database(server, "jarvis_unmigrated") as url:
        monkeypatch.setenv("DATABASE_URL", url)
        status = await asyncio.to_thread(main, argv)
    assert status == 2
    err = capsys.readouterr().err
    assert "not_migrated" in err
    assert "jarvis-memory migrate" in err
    assert HEAD in err


async def test_a_first_cli_command_migrates_the_embedded_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A new user's first command, before any serve or migrate, met "no such table".
    url = f"sqlite+aiosqlite:///{tmp_path / 'first.db'}"
    monkeypatch.setenv("DATABASE_URL", url)
    status = await asyncio.to_thread(main, ["add", "u", "我女儿今年七岁了", "--json"])
    assert status == 0
    out, err = capsys.readouterr()
    assert json.loads(out)["content"] == "我女儿今年七岁了"
    assert "Traceback" not in err
    status = await asyncio.to_thread(main, ["recall", "u", "女儿", "--json"])
    assert status == 0
    assert "七岁" in capsys.readouterr().out
