"""``python -m tests.mutation``: run mutmut over the core modules, write docs/mutation.md.

``make mutation`` runs this. The tests run on SQLite unless ``--postgres`` keeps
TEST_DATABASE_URL (twice the time). ``--report-only`` rewrites the report from the
results of the last run. Exits 1 when a surviving mutant is unexplained, an explanation
names a mutant that no longer survives, or the score is under 90%.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from dataclasses import asdict
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path

from tests.mutation.report import RunFacts, load_explanations, problems, render
from tests.mutation.results import read_mutants

MUTANTS = Path("mutants")
FACTS = MUTANTS / "run-facts.json"
FLOOR = 90.0


def run(postgres: bool, children: int) -> RunFacts:
    """A fresh mutmut run (every mutant tested again); its facts."""
    shutil.rmtree(MUTANTS, ignore_errors=True)
    env = dict(os.environ)
    if not postgres:
        env.pop("TEST_DATABASE_URL", None)
    databases = "SQLite and PostgreSQL" if env.get("TEST_DATABASE_URL") else "SQLite"
    started = datetime.now(UTC)
    begin = time.monotonic()
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(children)]
    subprocess.run(command, env=env, check=True)
    facts = RunFacts(
        tool=f"mutmut {version('mutmut')}",
        python=platform.python_version(),
        databases=databases,
        seconds=time.monotonic() - begin,
        started=started.isoformat(timespec="seconds"),
    )
    FACTS.write_text(json.dumps(asdict(facts)), "utf-8")
    return facts


def diff_of(name: str) -> str:
    """mutmut's own diff of one mutant against the original function."""
    diff_apply = importlib.import_module("mutmut.mutation.diff_apply")
    return str(diff_apply.get_diff_for_mutant(name))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.mutation", description=__doc__)
    parser.add_argument("--postgres", action="store_true", help="keep TEST_DATABASE_URL")
    parser.add_argument("--max-children", type=int, default=2)
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--output", type=Path, default=Path("docs/mutation.md"))
    args = parser.parse_args(argv)
    if args.report_only:
        facts = RunFacts(**json.loads(FACTS.read_text("utf-8")))
    else:
        facts = run(args.postgres, args.max_children)
    mutants = read_mutants(MUTANTS)
    explanations = load_explanations()
    args.output.write_text(render(mutants, facts, explanations, diff_of), "utf-8")
    print(f"wrote {args.output}")
    found = problems(mutants, explanations, FLOOR)
    for problem in found:
        print(f"mutation: {problem}", file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
