"""docs/mutation.md from mutmut's results, the run's facts and the explained survivors.

Every number in the report comes from the run; the prose around it is intro.md, and
each surviving mutant's explanation is survivors.toml, keyed by mutmut's mutant name.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tests.mutation.results import (
    KILLED,
    NO_TESTS,
    OTHER,
    SURVIVED,
    TIMEOUT,
    ModuleScore,
    Mutant,
    scores,
)

HERE = Path(__file__).parent
UNEXPLAINED = "**UNEXPLAINED**: kill it with a test or explain it in tests/mutation/survivors.toml"


@dataclass(frozen=True)
class RunFacts:
    """What the report says about the run itself."""

    tool: str  # "mutmut 3.8.1"
    python: str
    databases: str
    seconds: float
    started: str  # ISO date and time, UTC


def load_explanations(path: Path = HERE / "survivors.toml") -> dict[str, str]:
    """Mutant name -> why it survives. A value ``@key`` stands for ``[reasons].key``."""
    data = tomllib.loads(path.read_text("utf-8"))
    reasons: dict[str, str] = data.get("reasons", {})
    explained: dict[str, str] = data.get("survivors", {})
    return {
        name: reasons[text[1:]] if text.startswith("@") else text
        for name, text in explained.items()
    }


def _changed_lines(diff: str) -> str:
    """The removed and added lines of a unified diff, without its headers."""
    lines = diff.splitlines()
    return "\n".join(
        line for line in lines if line[:1] in "+-" and not line.startswith(("+++", "---"))
    )


def render(
    mutants: list[Mutant],
    facts: RunFacts,
    explanations: dict[str, str],
    diff_of: Callable[[str], str],
) -> str:
    """The whole report as Markdown."""
    rows = scores(mutants)
    out = [(HERE / "intro.md").read_text("utf-8").rstrip(), "", "## The last run", ""]
    minutes = facts.seconds / 60.0
    out += [
        f"- Tool: {facts.tool}, on Python {facts.python}",
        f"- Databases the tests ran on: {facts.databases}",
        f"- Started {facts.started}; took {facts.seconds:.0f} s ({minutes:.1f} min)",
        "",
        "| module | mutants | killed | timeout | survived | no tests | score |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    out += [_row(row) for row in rows]
    survivors = [m for m in mutants if m.verdict in (SURVIVED, NO_TESTS, OTHER)]
    out += ["", f"## Surviving mutants ({len(survivors)})", ""]
    if not survivors:
        out.append("None.")
    module = ""
    for mutant in survivors:
        if mutant.module != module:
            module = mutant.module
            out += [f"### {module}", ""]
        why = explanations.get(mutant.name, UNEXPLAINED)
        out += [
            f"- `{mutant.name}` ({mutant.verdict}): {why}",
            "",
            "  ```diff",
            *(f"  {line}" for line in _changed_lines(diff_of(mutant.name)).splitlines()),
            "  ```",
        ]
    stale = sorted(set(explanations) - {m.name for m in survivors})
    if stale:
        out += ["", "## Explanations of mutants that no longer survive", ""]
        out += [f"- `{name}`" for name in stale]
    return "\n".join(out) + "\n"


def _row(row: ModuleScore) -> str:
    c = row.counts
    name = f"**{row.module}**" if row.module == "(all)" else f"`{row.module}`"
    cells = [c[KILLED], c[TIMEOUT], c[SURVIVED], c[NO_TESTS] + c[OTHER]]
    return f"| {name} | {row.total} | " + " | ".join(map(str, cells)) + f" | {row.score:.1f}% |"


def problems(mutants: list[Mutant], explanations: dict[str, str], floor: float) -> list[str]:
    """Why the run fails its gate: unexplained survivors, stale explanations, a low score."""
    survivors = {m.name for m in mutants if m.verdict in (SURVIVED, NO_TESTS, OTHER)}
    found = [f"{len(survivors - set(explanations))} unexplained surviving mutants"]
    found.append(
        f"{len(set(explanations) - survivors)} explanations of mutants that no longer survive"
    )
    total = scores(mutants)[-1]
    if total.score < floor:
        found.append(f"score {total.score:.1f}% under {floor:.0f}%")
    return [p for p in found if not p.startswith("0 ")]
