"""``jarvis-memory add`` refuses what the API refuses: exit status 2,
a clear message, nothing stored, and the user's listing and recall keep answering."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from api.cli.main import main
from tests.conftest import BACKENDS
from tests.db_backends import fresh_database


async def _main(*argv: str) -> int:
    """main() runs its own event loop, so in a worker thread; argparse's refusals are a
    SystemExit with the status, like any other."""

    def run() -> int:
        try:
            return main(list(argv))
        except SystemExit as exc:
            return int(exc.code or 0)

    return await asyncio.to_thread(run)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_add_refuses_what_the_api_refuses_and_stores_nothing(
    backend: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    async with fresh_database(backend, tmp_path) as url:
        monkeypatch.setenv("DATABASE_URL", url)
        assert await _main("migrate") == 0
        capsys.readouterr()
        assert await _main("add", "alice", "hi", "--type", "note") == 2
        assert "invalid choice: 'note'" in capsys.readouterr().err
        assert await _main("add", "alice", "hi", "--tag", "x" * 33) == 2
        assert "error: invalid_input: " in capsys.readouterr().err
        assert await _main("add", "alice", "hi\x00there") == 2
        assert "NUL" in capsys.readouterr().err
        assert await _main("stats", "--json") == 0
        assert json.loads(capsys.readouterr().out)["memories"] == 0
        # The user is still served: an add of a known type, then its recall.
        assert await _main("add", "alice", "I keep notes in Obsidian", "--type", "fact") == 0
        capsys.readouterr()
        assert await _main("recall", "alice", "notes", "--json") == 0
        hits = json.loads(capsys.readouterr().out)
        assert [h["memory"]["memory_type"] for h in hits] == ["fact"]
