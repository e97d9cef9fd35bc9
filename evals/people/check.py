"""``python -m evals.people.check [FILE ...]``: check people files against the README's rules."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from evals.people.data import parse, people_files, problems, summary
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer


def main(argv: list[str]) -> int:
    analyzer = TextAnalyzer(Settings())
    paths = [Path(a) for a in argv] or people_files()
    bad = 0
    people = []
    for path in paths:
        raw = json.loads(path.read_text(encoding="utf-8"))
        wrong = problems(raw, analyzer)
        person = parse(raw)
        people.append(person)
        counts = summary([person])
        turns = len(person.user_turns), len(person.turns) - len(person.user_turns)
        sys.stdout.write(f"{path.name}: user/assistant turns {turns}, {counts}\n")
        for w in wrong:
            sys.stdout.write(f"  {w}\n")
        bad += bool(wrong)
    sys.stdout.write(f"all: {summary(people)}\n")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
