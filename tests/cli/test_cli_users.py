"""``jarvis-memory users erase``: a person erased from the command line."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from api.cli.main import main


def test_users_erase_removes_a_person_and_reports_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.setenv("EMBEDDING_PROVIDER", "none")
    assert main(["add", "alice", "My secret PIN is ZQXJ7781"]) == 0
    capsys.readouterr()
    assert main(["users", "erase", "alice", "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["erased"]["memories"] == 1
    assert first["erased"]["users"] == 1
    assert main(["users", "erase", "alice", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 0
    assert main(["users", "erase", "alice"]) == 0
    assert "alice: 0 rows erased" in capsys.readouterr().out
    assert main(["users", "erase", "not a user id"]) != 0


async def test_runs_beside_an_event_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    assert await asyncio.to_thread(main, ["users", "erase", "bob"]) == 0
