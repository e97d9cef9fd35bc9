"""The tree speaks for itself: no sentence in it sends the reader to an issue tracker.

A reader of this repository has its files, not the tracker the project was built with, so
a comment, docstring, test or doc gives the reason itself instead of a tracker number.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TRACKER_NUMBER = re.compile(r"\bissues?\s?#?\d+", re.IGNORECASE)
# Generated, vendored or binary: nothing written by hand, nothing that could hold prose.
SKIPPED_SUFFIXES = (".lock", ".png", ".jpg", ".ico", ".woff", ".woff2", ".gz", ".whl")
SKIPPED_PARTS = {"node_modules", "dist", "build"}


def _tree_files() -> list[Path]:
    """Every file git tracks or would add (untracked but not ignored)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    return [
        ROOT / name
        for name in listed.split("\0")
        if name
        and not name.endswith(SKIPPED_SUFFIXES)
        and not SKIPPED_PARTS.intersection(Path(name).parts)
        and (ROOT / name).is_file()
    ]


def test_no_tracker_numbers_in_the_tree() -> None:
    found = []
    for path in _tree_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if TRACKER_NUMBER.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "say the reason instead of the tracker number:\n" + "\n".join(found)
