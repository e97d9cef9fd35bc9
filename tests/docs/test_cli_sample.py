"""The README's command-line sample is what the CLI prints (docsgen/cli_sample.py)."""

from __future__ import annotations

from pathlib import Path

from docsgen import cli_sample

README = Path(__file__).resolve().parents[2] / "README.md"


def test_the_readme_cli_sample_is_what_the_cli_prints() -> None:
    live = cli_sample.render(cli_sample.run())
    committed = cli_sample.extract(README.read_text(encoding="utf-8"))
    # On a difference: `make docs` regenerates the sample (and review the change).
    assert cli_sample.differences(committed, live) == []


def test_an_edited_score_is_caught_and_a_date_is_not() -> None:
    committed = cli_sample.extract(README.read_text(encoding="utf-8"))
    edited = committed.replace("lexical 0.700", "lexical 0.600", 1)
    assert edited != committed
    assert cli_sample.differences(committed, edited)
    redated = committed.replace("2026-", "2031-")
    assert redated != committed
    assert cli_sample.differences(committed, redated) == []
