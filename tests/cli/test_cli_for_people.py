"""The CLI for people: tables, a compact --explain, help everywhere, ISO times, progress."""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from api.cli.main import main
from api.cli.output import recall_table
from api.cli.parser import build_parser
from api.cli.progress import ProgressBar
from models import MEMORY_TYPES, UserMemory
from services.core.db import Database
from services.core.settings import Settings
from services.recall.recall_service import RecallHit
from services.remembering.importers.memorybank import import_memorybank
from services.remembering.reindex import reindex
from services.text.analysis import TextAnalyzer
from tests.conftest import FakeClock
from tests.db_backends import fresh_database
from tests.factories import Counted
from tests.timing import scaled

ISO = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                found += _parsers(child)
    return found


def test_every_command_and_option_has_help_and_lists_its_allowed_values() -> None:
    parsers = _parsers(build_parser())
    assert len(parsers) >= 14  # the commands, import's and eval's sources
    for parser in parsers:
        assert parser.description, f"{parser.prog} has no description"
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            if isinstance(action, argparse._SubParsersAction):
                # Each command's one-line help, shown in its parent's list.
                summaries = action._get_subactions()
                assert len(summaries) == len(action.choices)
                assert all(summary.help for summary in summaries)
                continue
            assert action.help, f"{parser.prog} {action.dest} has no help"
            if action.choices and not isinstance(action, argparse._SubParsersAction):
                shown = parser.format_help()
                assert all(str(choice) in shown for choice in action.choices)
    add = next(p for p in parsers if p.prog.endswith(" add"))
    assert all(kind in add.format_help() for kind in MEMORY_TYPES)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["add", "ann", "x", "--type", "nonsense"])
    assert build_parser().parse_args(["add", "ann", "x"]).role == "user"
    assert build_parser().parse_args(["add", "ann", "x", "--role", "assistant"]).role == (
        "assistant"
    )
    with pytest.raises(SystemExit):
        build_parser().parse_args(["add", "ann", "x", "--role", "system"])


def _hit(content: str, confidence: float | None = None) -> RecallHit:
    memory = UserMemory(
        id=7,
        user_id="ann",
        content=content,
        memory_type="event",
        importance_level="high",
        importance_score=0.8,
        created_at=datetime(2026, 3, 2, 9, 0, 5, 123456, tzinfo=UTC),
    )
    return RecallHit(
        memory=memory, score=0.91, relevance=1.0, importance=0.8, confidence=confidence
    )


def _render(hits: list[RecallHit]) -> str:
    from rich.console import Console

    out = io.StringIO()
    Console(file=out, width=100).print(recall_table(hits))
    return out.getvalue()


def test_the_recall_table_shows_confidence_when_recall_gave_one() -> None:
    plain = _render([_hit("下周去杭州出差")])  # an empty query's hit: no confidence
    assert plain.split()[:6] == ["#", "score", "level", "type", "date", "content"]
    assert "2026-03-02T09:00:05Z" in plain
    assert "下周去杭州出差" in plain
    assert "confidence" not in plain
    scored = _render([_hit("下周去杭州出差", 0.42)])
    assert "confidence" in scored
    assert "0.42" in scored


async def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = await asyncio.to_thread(main, list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


async def test_text_for_people_json_for_machines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Presentation only: one backend (the commands' storage is tested on both).
    async with fresh_database("sqlite", tmp_path) as url:
        monkeypatch.setenv("DATABASE_URL", url)
        assert (await _cli(capsys, "migrate"))[0] == 0
        code, out, _ = await _cli(
            capsys, "add", "carol", "下周要去杭州出差，很重要", "--type", "event"
        )
        assert code == 0
        assert out.startswith("remembered as #1 (event, ")
        await _cli(capsys, "add", "carol", "杭州的西湖很美")
        code, table, _ = await _cli(capsys, "recall", "carol", "杭州出差", "--no-track")
        lines = table.splitlines()
        assert lines[0].split() == ["#", "score", "confidence", "level", "type", "date", "content"]
        assert "下周要去杭州出差，很重要" in lines[2]
        assert lines[2].split()[:2] == ["1", lines[2].split()[1]]
        assert ISO.search(lines[2])
        code, explained, _ = await _cli(capsys, "recall", "carol", "杭州出差", "--explain")
        why = explained.splitlines()[len(lines) :]
        # A few lines per hit, not the JSON's hundreds.
        assert 2 <= len(why) <= 8
        assert why[0].startswith("1. memory 1: score ")
        assert "lexical" in why[0]
        assert any(line.strip().startswith("matched 出差") for line in why)
        assert any(line.strip().startswith("importance ") for line in why)
        code, machine, _ = await _cli(capsys, "recall", "carol", "杭州出差", "--explain", "--json")
        assert len(machine.splitlines()) > 5 * len(explained.splitlines())
        assert json.loads(machine)[0]["explanation"]["mode"] == "fused"

        code, out, _ = await _cli(capsys, "rescore")
        assert ISO.search(out)
        assert out.startswith("rescore run 1 succeeded: 2 rows")
        code, out, _ = await _cli(capsys, "stats")
        assert "memories    2" in out
        assert ISO.search(out)
        code, out, _ = await _cli(capsys, "stats", "--json")
        stats = json.loads(out)
        # Times as the API writes them (once str(): "2026-11-26 19:54:27.6+00:00").
        assert stats["last_rescore"]["finished_at"].endswith("Z")
        assert "T" in stats["last_rescore"]["finished_at"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_progress_bar_draws_in_a_terminal_only() -> None:
    drawn = _Terminal()
    with ProgressBar("importing", drawn) as bar:
        bar.start(3)
        for _ in range(3):
            bar.advance()
    assert "importing" in drawn.getvalue()
    assert "3/3" in drawn.getvalue()
    piped = io.StringIO()
    with ProgressBar("importing", piped) as bar:
        bar.start(3)
        bar.advance(3)
    assert piped.getvalue() == ""


async def test_import_and_reindex_report_their_progress(
    db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock, tmp_path: Path
) -> None:
    path = tmp_path / "bank.json"
    history = {"2023-04-28": [{"query": f"第{n}天散步", "response": f"好的{n}"} for n in range(4)]}
    path.write_text(json.dumps({"Ann": {"history": history}}), encoding="utf-8")
    imported = Counted()
    await import_memorybank(db, (settings, analyzer, clock), path, progress=imported)
    assert (imported.total, imported.done) == (8, 8)
    reindexed = Counted()
    result = await reindex(db, analyzer, "memorybank-01", batch_size=3, progress=reindexed)
    assert (reindexed.total, reindexed.done, result.memories) == (8, 8, 8)


def test_a_reader_that_goes_away_ends_the_command_quietly_with_sigpipes_status(
    tmp_path: Path,
) -> None:
    # `jarvis-memory add … --json | head -1`: the pipe is closed before anything is written.
    env = dict(os.environ, DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path / 'pipe.db'}")
    code = "import sys; from api.cli.main import main; sys.exit(main())"
    process = subprocess.Popen(
        [sys.executable, "-c", code, "add", "u", "我女儿今年七岁了", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None
    process.stdout.close()
    _, err = process.communicate(timeout=scaled(120))
    assert process.returncode == 141
    assert b"Traceback" not in err
    assert b"BrokenPipeError" not in err
