"""The console script end to end, on a fresh database of each backend."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from api.cli.main import main
from api.server.loopback import is_loopback
from tests.conftest import BACKENDS
from tests.db_backends import fresh_database
from tests.providers import ProviderServer

ROOT = Path(__file__).resolve().parents[2]


async def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    # main() runs its own event loop, so it goes to a worker thread. --json: the machine
    # form (tests/cli/test_cli_for_people.py reads the text).
    code = await asyncio.to_thread(main, [*argv, *(["--json"] if argv[0] != "migrate" else [])])
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
        assert added["role"] == "user"
        assert "很重要" in added["emotion_tags"]
        code, out = await _run(capsys, "recall", "carol", "杭州出差", "--explain")
        hits = json.loads(out)
        assert code == 0
        assert hits[0]["memory"]["id"] == added["id"]
        assert hits[0]["memory"]["recall_count"] == 1
        assert (hits[0]["counted"], hits[0]["confidence"] >= 0.95) == (True, True)
        assert hits[0]["evidence"]["query_dependent"]["terms"]
        assert "explanation" in hits[0]
        code, out = await _run(capsys, "recall", "carol", "杭州", "--no-track")
        assert json.loads(out)[0]["memory"]["recall_count"] == 1
        code, out = await _run(
            capsys, "recall", "carol", "杭州", "--no-track", "--min-confidence", "1"
        )
        assert json.loads(out) == []
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
        code, out = await _run(capsys, "embed", "--verify")
        check = json.loads(out)
        assert (code, check["checked"], check["matching"], check["stale"]) == (0, 2, 2, [])


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
