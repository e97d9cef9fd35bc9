"""Reading mutmut's results: one verdict per mutant, counted per module.

mutmut 3 leaves, next to each mutated copy under ``mutants/``, a ``<file>.py.meta`` JSON
with the exit code of every mutant's test run. The codes are mutmut's
(``mutmut.stats.status_by_exit_code``), restated here so this module needs no mutmut to
import (mypy checks tests/ in the plain test environment).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

KILLED, SURVIVED, NO_TESTS, TIMEOUT, OTHER = "killed", "survived", "no tests", "timeout", "other"
_VERDICTS = {
    1: KILLED,
    3: KILLED,  # pytest's internal error: the mutant broke the import or a fixture
    0: SURVIVED,
    5: NO_TESTS,
    33: NO_TESTS,
    36: TIMEOUT,
    24: TIMEOUT,
    -24: TIMEOUT,
    152: TIMEOUT,
    255: TIMEOUT,
}
# What the score counts as found; a timeout is a mutant that made the tests hang.
DETECTED = (KILLED, TIMEOUT)


def verdict(exit_code: int | None) -> str:
    """The verdict of one exit code; None (never run) and the rare others are OTHER."""
    return OTHER if exit_code is None else _VERDICTS.get(exit_code, OTHER)


@dataclass(frozen=True)
class Mutant:
    """One mutant: its mutmut name, the module it mutates and what its tests made of it."""

    name: str
    module: str
    verdict: str


@dataclass(frozen=True)
class ModuleScore:
    """The verdicts of one module's mutants."""

    module: str
    counts: Counter[str]

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    @property
    def detected(self) -> int:
        return sum(self.counts[v] for v in DETECTED)

    @property
    def score(self) -> float:
        """Detected / all mutants, in percent: survivors, even explained ones, count
        against it, and so do mutants no selected test reaches."""
        return 100.0 * self.detected / self.total if self.total else 100.0


def read_mutants(mutants_dir: Path) -> list[Mutant]:
    """Every mutant of every mutated file, in file, function and number order."""
    found: list[Mutant] = []
    for meta in sorted(mutants_dir.rglob("*.py.meta")):
        relative = meta.relative_to(mutants_dir).with_suffix("")  # services/x/y.py
        module = ".".join(relative.with_suffix("").parts)
        codes: dict[str, int | None] = json.loads(meta.read_text("utf-8"))["exit_code_by_key"]
        ordered = sorted(codes.items(), key=lambda item: _natural(item[0]))
        found.extend(Mutant(name, module, verdict(code)) for name, code in ordered)
    return found


def _natural(name: str) -> tuple[str, int]:
    """``f__mutmut_10`` after ``f__mutmut_9``."""
    function, _, number = name.rpartition("__mutmut_")
    return function, int(number) if number.isdigit() else -1


def scores(mutants: list[Mutant]) -> list[ModuleScore]:
    """Per module, in module order, then the total over all of them as ``(all)``."""
    by_module: dict[str, Counter[str]] = {}
    for mutant in mutants:
        by_module.setdefault(mutant.module, Counter())[mutant.verdict] += 1
    rows = [ModuleScore(module, counts) for module, counts in sorted(by_module.items())]
    return [*rows, ModuleScore("(all)", sum((r.counts for r in rows), Counter()))]
