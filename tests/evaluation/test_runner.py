"""The harness end to end on a tiny synthetic conversation, through the real services."""

from __future__ import annotations

import asyncio
import json
import tempfile
from datetime import UTC, datetime
from pathlib import Path

import pytest

from evals.cli import main
from evals.command import service_overrides
from evals.locomo import load_locomo, run_locomo
from evals.metrics import aggregate
from services.composition import Services
from services.core.db import Database
from services.core.settings import Settings, SignalWeights
from services.text.analysis import TextAnalyzer
from tests.conftest import FakeClock
from tests.db_backends import fresh_database
from tests.evaluation.synthetic import write_sample
from tests.factories import Counted

KS = (1, 5)
# Service, per question (category: R@1, R@5):
#   1 "violin teacher", evidence D2:4 + D1:4: D2:4 ranks first, D1:4 second → 0.5, 1.0
#   4 "name ... puppy", evidence D2:3, merged into D1:1's memory, the only match → 1.0, 1.0
#   2 "first marathon", evidence D2:1 + D1:3: D1:3 shares no word with it → 0.5, 0.5
SERVICE = {1: {1: 0.5, 5: 1.0}, 2: {1: 0.5, 5: 0.5}, 4: {1: 1.0, 5: 1.0}}
# Baseline: the same, except that for the puppy question "the" ranks D2:2 first and the
# tie between D1:1 and its unmerged repeat D2:3 goes to the earlier turn → 0.0 at k=1.
BASELINE = {1: {1: 0.5, 5: 1.0}, 2: {1: 0.5, 5: 0.5}, 4: {1: 0.0, 5: 1.0}}


async def test_runner_scores_merged_turns_and_repaired_evidence(
    db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock, tmp_path: Path
) -> None:
    conversations = load_locomo(write_sample(tmp_path))
    progress = Counted()
    services = Services(settings, db, analyzer, clock)
    run = await run_locomo(services, conversations, KS, "eval-t-", progress=progress)
    questions = sum(len(c.questions) for c in conversations)
    assert (progress.total, progress.done) == (questions, questions)  # the CLI's bar

    assert {s.category: dict(s.recall) for s in run.service} == SERVICE
    assert {s.category: dict(s.recall) for s in run.baseline} == BASELINE
    cells = aggregate(run.service, KS)
    assert cells["1-5"].count == cells["1-4"].count == 3
    assert cells["1-5"].recall == {1: pytest.approx(2 / 3), 5: pytest.approx(2.5 / 3)}
    assert cells["3"].count == cells["5"].count == 0
    assert aggregate(run.baseline, KS)["1-5"].recall[1] == pytest.approx(1 / 3)

    [done] = run.conversations
    assert (done.user_id, done.turns, done.memories, done.merged_turns) == (
        "eval-t-conv-t1",
        8,
        7,
        1,
    )
    assert done.questions == 3
    assert len(run.latencies_ms) == len(run.lexical_latencies_ms) == 3
    assert all(ms > 0 for ms in [*run.latencies_ms, *run.lexical_latencies_ms])
    # The plain lexical row: 0.7 · relevance + 0.3 · importance, nothing else.
    assert {s.category: dict(s.recall) for s in run.lexical} == SERVICE

    async with db.unit_of_work() as session:
        page = await services.memories(session).list_page(
            "eval-t-conv-t1", order="recent", limit=20
        )
    by_dia = {m.meta["dia_id"]: m for m in page.items}
    assert set(by_dia) == {"D1:1", "D1:2", "D1:3", "D1:4", "D2:1", "D2:2", "D2:4"}
    violin = by_dia["D1:4"]
    assert violin.meta == {"dia_id": "D1:4", "session": 1}
    assert violin.content.endswith("[image: a photo of a violin on a wooden table]")
    assert violin.created_at.replace(tzinfo=UTC) == datetime(2023, 3, 1, 10, 5, tzinfo=UTC)
    assert by_dia["D2:4"].created_at.replace(tzinfo=UTC) == datetime(
        2023, 4, 12, 16, 30, tzinfo=UTC
    )
    assert by_dia["D1:1"].mention_count == 2  # D2:3 repeated it
    assert all(m.recall_count == 0 for m in page.items)  # track=False


async def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    # main() runs its own event loop, so it goes to a worker thread.
    code = await asyncio.to_thread(main, ["locomo", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


async def test_cli_runs_on_a_temporary_sqlite_and_writes_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    data = write_sample(tmp_path, copies=2)
    out_json, out_md = tmp_path / "out" / "r.json", tmp_path / "out" / "r.md"
    code, out, _ = await _cli(
        capsys,
        "--conversations",
        "1",
        "--data",
        str(data),
        "--k",
        "5,1",
        "--json",
        str(out_json),
        "--markdown",
        str(out_md),
    )
    assert code == 0
    assert list(scratch.iterdir()) == []  # the temporary database is gone

    report = json.loads(out_json.read_text(encoding="utf-8"))
    assert report["ks"] == [1, 5]
    assert report["dataset"]["conversations"] == 1
    assert [c["sample_id"] for c in report["conversations"]] == ["conv-t1"]
    assert report["dataset"]["questions_evaluated"] == 3
    assert report["dataset"]["questions_skipped"] == 2
    assert len(report["dataset"]["sha256"]) == 64
    ingest = dict(report["ingest"])
    # A duration: only its type and sign are the report's to promise, not its size.
    seconds = ingest.pop("seconds")
    assert isinstance(seconds, float)
    assert seconds > 0.0
    assert ingest == {"turns": 8, "memories": 7, "merged_turns": 1}
    service = report["systems"]["jarvis-memory"]["recall"]
    assert service["1-5"] == {
        "questions": 3,
        "R@1": pytest.approx(2 / 3),
        "R@5": pytest.approx(2.5 / 3),
    }
    assert service["3"] == {"questions": 0, "R@1": None, "R@5": None}
    assert report["systems"]["baseline"]["recall"]["4"]["R@1"] == 0.0
    assert report["recall_latency_ms"]["queries"] == 3
    assert report["lexical_only_latency_ms"]["queries"] == 3
    assert set(report["systems"]) == {"baseline", "lexical-only", "jarvis-memory"}
    assert 0 < report["recall_latency_ms"]["p50"] <= report["recall_latency_ms"]["p95"]
    assert report["settings"]["database"].startswith("sqlite (temporary")
    assert "jarvis_api_keys" not in report["settings"]["service"]

    markdown = out_md.read_text(encoding="utf-8")
    assert markdown.splitlines()[0].startswith("<!-- Generated by `make eval`")
    assert "| jarvis-memory | 50.0 | 50.0 | – | 100.0 | – | 66.7 | 66.7 |" in markdown
    assert "| baseline | 50.0 | 50.0 | – | 0.0 | – | 33.3 | 33.3 |" in markdown
    rows = [line.split() for line in out.splitlines()]
    assert ["jarvis-memory", "50.0", "50.0", "–", "100.0", "–", "66.7", "66.7"] in rows
    assert ["jarvis-memory", "100.0", "50.0", "–", "100.0", "–", "83.3", "83.3"] in rows
    assert "p50" in out
    assert "p50 ratio jarvis-memory / lexical-only = " in out
    assert ["lexical-only", "50.0", "50.0", "–", "100.0", "–", "66.7", "66.7"] in rows
    assert "1 turns merged" in out


async def test_cli_refuses_an_unmigrated_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with fresh_database("sqlite", tmp_path) as url:
        code, _, err = await _cli(
            capsys, "--data", str(write_sample(tmp_path)), "--database-url", url
        )
    assert code == 2
    assert "run jarvis-memory migrate first" in err


async def test_cli_rejects_a_missing_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = await _cli(capsys, "--data", str(tmp_path / "missing.json"))
    assert code == 2
    assert "no such dataset file" in err


@pytest.mark.parametrize(
    ("option", "value"),
    [("--k", "0"), ("--k", "101"), ("--k", "five"), ("--k", ","), ("--limit-conversations", "0")],
)
def test_cli_rejects_bad_arguments(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        main(["locomo", "--data", "x.json", option, value])
    assert "must be" in capsys.readouterr().err


def test_service_overrides_lists_only_changed_settings() -> None:
    assert service_overrides(Settings(_env_file=None)) == {}
    changed = Settings(
        _env_file=None,
        recall_mmr_lambda=1.0,
        recall_weights_temporal=SignalWeights(lexical=1.0),
        jarvis_api_keys="secret",
    )
    assert service_overrides(changed) == {
        "recall_mmr_lambda": 1.0,
        "recall_weights_temporal": SignalWeights(lexical=1.0).model_dump(),
    }
