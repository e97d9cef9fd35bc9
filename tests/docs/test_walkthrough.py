"""The README's walkthrough is what a fresh service answers (docsgen/walkthrough.py).

Run on both databases: each test run makes a new, empty database per backend, so ids
start at 1 as in the README. jq must be installed (it is part of the commands shown);
CI installs it (.ci/run).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from docsgen import walkthrough
from docsgen.__main__ import fresh_service
from services.core.schema import migrate
from tests.conftest import BACKENDS
from tests.db_backends import fresh_database

README = Path(__file__).resolve().parents[2] / "README.md"

needs_jq = pytest.mark.skipif(
    shutil.which("jq") is None and os.environ.get("CI", "").lower() != "true",
    reason="jq is not installed (apt-get install jq); CI installs it",
)


@needs_jq
@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_readme_walkthrough_is_what_the_service_answers(
    backend: str, tmp_path: Path
) -> None:
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url)
        async with fresh_service(url) as client:
            live = walkthrough.render(await walkthrough.run(client))
    committed = walkthrough.extract(README.read_text(encoding="utf-8"))
    # On a difference: `make docs` regenerates the walkthrough (and review the change).
    assert walkthrough.differences(committed, live) == []


def test_an_edited_answer_or_command_is_caught() -> None:
    committed = walkthrough.extract(README.read_text(encoding="utf-8"))
    edited_answer = committed.replace('"importance_level":"low"', '"importance_level":"high"', 1)
    edited_command = committed.replace("memories/4/restore", "memories/5/restore", 1)
    assert edited_answer != committed
    assert edited_command != committed
    assert walkthrough.differences(committed, edited_answer)
    assert walkthrough.differences(committed, edited_command)


def test_dates_and_float_formatting_are_not_differences() -> None:
    then = '{"when":"2026-01-02T03:04:05.678Z","day":"(2026-01-02)","x":0.1}'
    later = '{"when":"2031-05-06T07:08:09Z","day":"(2031-05-06)","x":0.1000000000001}'
    answer = walkthrough.ANSWER
    assert walkthrough.differences(answer + then, answer + later) == []
    assert walkthrough.differences(answer + then, answer + then.replace("0.1", "0.2"))
