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


def test_users_export_erase_import_gives_back_the_same_person(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"sqlite+aiosqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.setenv("EMBEDDING_PROVIDER", "none")
    for statement in ("我住在北京", "我搬到上海了", "I drink green tea every morning"):
        assert main(["add", "alice", statement]) == 0
    assert main(["recall", "alice", "green tea", "--json"]) == 0
    capsys.readouterr()
    exported = tmp_path / "alice.jsonl"
    assert main(["users", "export", "alice", "--output", str(exported)]) == 0
    assert not list(tmp_path.glob("*.partial"))
    assert main(["users", "erase", "alice"]) == 0
    assert main(["users", "import", "alice", str(exported), "--json"]) == 0
    capsys.readouterr()
    assert main(["users", "import", "alice-copy", str(exported), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["imported"]["memory"] == 3
    assert main(["users", "export", "alice"]) == 0
    again = capsys.readouterr().out.splitlines()
    first = exported.read_text().splitlines()
    assert len(first) == 6  # header, person, three memories, end
    assert again[1:] == first[1:]
    # Into a person with memories: refused, nothing written, exit status 2.
    assert main(["users", "import", "alice", str(exported)]) == 2
    assert "user_not_empty" in capsys.readouterr().err
    spoiled = tmp_path / "cut.jsonl"
    spoiled.write_text("\n".join(first[:-1]) + "\n")
    assert main(["users", "import", "bob", str(spoiled)]) == 2
    assert "invalid_export" in capsys.readouterr().err
    assert main(["users", "export", "bob"]) == 0
    assert '"memory":0' in capsys.readouterr().out
