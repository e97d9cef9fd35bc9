"""The console script end to end, on a fresh database of each backend."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from pathlib import Path

import httpx
import pytest

from api.cli import is_loopback, main
from tests.conftest import BACKENDS
from tests.db_backends import fresh_database, postgres_server_url
from tests.providers import ProviderServer

ROOT = Path(__file__).resolve().parents[2]


async def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    # main() runs its own event loop, so it goes to a worker thread.
    code = await asyncio.to_thread(main, list(argv))
    return code, capsys.readouterr().out


@pytest.mark.parametrize("backend", BACKENDS)
async def test_migrate_add_recall_rescore_stats(
    backend: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with fresh_database(backend, tmp_path) as url:
        monkeypatch.setenv("DATABASE_URL", url)
        assert (await _run(capsys, "migrate"))[0] == 0
        code, out = await _run(
            capsys, "add", "carol", "我下周要去杭州出差，很重要", "--type", "event"
        )
        assert code == 0
        added = json.loads(out)
        assert added["memory_type"] == "event"
        assert "很重要" in added["emotion_tags"]
        code, out = await _run(capsys, "recall", "carol", "杭州出差", "--explain")
        hits = json.loads(out)
        assert code == 0
        assert hits[0]["memory"]["id"] == added["id"]
        assert hits[0]["memory"]["recall_count"] == 1
        assert "explanation" in hits[0]
        code, out = await _run(capsys, "recall", "carol", "杭州", "--no-track")
        assert json.loads(out)[0]["memory"]["recall_count"] == 1
        code, out = await _run(capsys, "rescore", "--user", "carol")
        run = json.loads(out)
        assert (code, run["status"], run["rows"], run["trigger"]) == (0, "succeeded", 1, "cli")
        code, out = await _run(capsys, "stats")
        stats = json.loads(out)
        assert (stats["users"], stats["memories"], stats["recalls"]) == (1, 1, 1)
        assert stats["last_rescore"]["status"] == "succeeded"
        code, _ = await _run(capsys, "add", "bad user", "x")
        assert code == 2


@pytest.mark.parametrize("backend", BACKENDS)
async def test_embed_backfills_missing_vectors_once(
    backend: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    provider: ProviderServer,
) -> None:
    async with fresh_database(backend, tmp_path) as url:
        monkeypatch.setenv("DATABASE_URL", url)
        assert (await _run(capsys, "migrate"))[0] == 0
        # No provider configured while adding: both memories are stored without vectors.
        for user, text in [("carol", "my sister lives in Lisbon"), ("dave", "I walk the dog")]:
            assert (await _run(capsys, "add", user, text))[0] == 0
        code = await asyncio.to_thread(main, ["embed"])
        assert code == 2
        assert "embeddings_off" in capsys.readouterr().err

        monkeypatch.setenv("EMBEDDING_PROVIDER", "openai")
        monkeypatch.setenv("EMBEDDING_BASE_URL", provider.base_url)
        monkeypatch.setenv("EMBEDDING_MODEL", "toy")
        provider.mode = "error"
        code, out = await _run(capsys, "embed")
        failed = json.loads(out)
        assert (code, failed["status"], failed["rows"]) == (1, "failed", 0)
        assert "500" in failed["error"]

        provider.mode = "ok"
        code, out = await _run(capsys, "embed", "--user", "carol")
        run = json.loads(out)
        assert (code, run["status"], run["rows"], run["trigger"]) == (0, "succeeded", 1, "cli")
        assert (run["job"], run["user_id"]) == ("embed", "carol")
        embedded = [body["input"] for path, body in provider.requests if path == "/v1/embeddings"]
        assert embedded[-1] == ["my sister lives in Lisbon"]
        code, out = await _run(capsys, "embed")
        assert (code, json.loads(out)["rows"]) == (0, 1)  # only dave's was left
        code, out = await _run(capsys, "embed")
        assert (code, json.loads(out)["rows"]) == (0, 0)


def test_serve_refuses_public_bind_without_keys(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("JARVIS_API_KEYS", raising=False)
    monkeypatch.delenv("JARVIS_ADMIN_KEYS", raising=False)
    assert main(["serve", "--host", "0.0.0.0"]) == 2
    assert "refusing to bind 0.0.0.0" in capsys.readouterr().err


def test_loopback_detection() -> None:
    assert is_loopback("127.0.0.1")
    assert is_loopback("::1")
    assert is_loopback("localhost")
    assert not is_loopback("0.0.0.0")
    assert not is_loopback("example.org")


@pytest.mark.parametrize(
    ("workers", "message"), [("2", "refusing --workers > 1 on SQLite"), ("0", "at least 1")]
)
def test_serve_refuses_several_workers_on_sqlite_and_none_at_all(
    workers: str,
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'one.db'}")
    assert main(["serve", "--workers", workers]) == 2
    assert message in capsys.readouterr().err


def _worker_processes(pid: int) -> int:
    """Children of ``pid`` that multiprocessing spawned as workers (uvicorn starts a
    resource tracker beside them)."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    return sum(b"spawn_main" in Path(f"/proc/{c}/cmdline").read_bytes() for c in children)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.skipif(postgres_server_url() is None, reason="several workers need PostgreSQL")
async def test_several_workers_serve_one_postgresql_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async with fresh_database("postgresql", tmp_path) as url:
        monkeypatch.setenv("DATABASE_URL", url)
        assert (await _run(capsys, "migrate"))[0] == 0
        port = _free_port()
        server = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "api.cli",
            "serve",
            "--port",
            str(port),
            "--workers",
            "2",
            cwd=ROOT,
            env={**os.environ, "DATABASE_URL": url},
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            async with httpx.AsyncClient(base_url=base, trust_env=False) as client:
                for _ in range(600):  # the workers warm jieba up before they listen
                    try:
                        if (await client.get("/healthz")).status_code == 200:
                            break
                    except httpx.TransportError:
                        pass
                    await asyncio.sleep(0.1)
                assert await asyncio.to_thread(_worker_processes, server.pid) == 2
                added = await client.post(
                    "/v1/users/dana/memories", json={"content": "the spare key is in the shed"}
                )
                assert added.status_code == 201
            # A connection each, so the kernel hands them to either worker.
            for _ in range(10):
                async with httpx.AsyncClient(base_url=base, trust_env=False) as client:
                    found = await client.post("/v1/users/dana/recall", json={"query": "spare key"})
                    assert found.status_code == 200
                    assert [r["memory"]["id"] for r in found.json()["results"]] == [
                        added.json()["id"]
                    ]
        finally:
            server.terminate()
            await server.wait()
