"""The client README's examples run, as a reader would run them, against the real server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.live_server import LiveServer
from tests.timing import scaled

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"


def example(marker: str) -> str:
    """The code block after ``<!-- marker -->`` in the client's README."""
    text = (CLIENT / "README.md").read_text(encoding="utf-8")
    found = re.search(rf"<!-- {marker} -->\n```python\n(.*?)```", text, re.DOTALL)
    assert found, marker
    return found.group(1)


def run(code: str, live: LiveServer) -> str:
    """Run ``code`` in a fresh interpreter with the client importable; its output."""
    env = {
        **os.environ,
        "JARVIS_URL": live.url,
        "JARVIS_API_KEY": live.service_key,
        "PYTHONPATH": str(CLIENT),
    }
    done = subprocess.run(
        [sys.executable, "-c", code],
        env=env,
        capture_output=True,
        text=True,
        timeout=scaled(60),
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_sync_example_prints_the_hits_then_the_forgotten_memory_s_code(
    live: LiveServer,
) -> None:
    lines = run(example("client-example"), live).splitlines()
    assert lines[0].endswith(" My sister Ann lives in Lisbon")
    assert lines[-1] == "memory_not_found"


def test_the_async_example_prints_what_it_recalled(live: LiveServer) -> None:
    output = run(example("client-async-example"), live)
    assert output.strip() == '["Bob\'s dentist appointment is on Friday"]'


def test_the_project_readme_shows_the_same_example() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"<!-- client-example -->\n```python\n{example('client-example')}```" in readme
