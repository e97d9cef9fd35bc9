"""The people evaluation's figures: per part (fit, test) and write mode, with baselines.

- ``hit@1``: the first result is an answer (answerable questions);
- ``filler``: results not acceptable for their question / all results;
- ``unrelated per no-answer``: mean results of the questions the store cannot answer that
  are not acceptable for them;
- ``counts to filler``: recall_count a tracked recall added to memories not acceptable;
- ``ranking hit@1``: recall's ranking with no confidence floor (``min_confidence`` 0)
  puts an answer first: what the fusion ranks, beside what the floor lets through;
- ``BM25 hit@1`` / ``dense hit@1``: the baselines on the same questions;
- ``gap``: fit hit@1 − test hit@1 (what tuning on the fit part bought that did not
  transfer).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

Row = dict[str, Any]


def _share(hits: int, total: int) -> float | None:
    return hits / total if total else None


def figures(rows: Sequence[Row]) -> dict[str, Any]:
    """The figures of one group of rows."""
    answerable = [r for r in rows if r["kind"] != "no_answer"]
    no_answer = [r for r in rows if r["kind"] == "no_answer"]
    returned = sum(r["returned"] for r in rows)

    def hit(sub: Sequence[Row], key: str = "hit_at_1") -> float | None:
        return _share(sum(bool(r[key]) for r in sub), len(sub))

    return {
        "questions": len(rows),
        "answerable": len(answerable),
        "hit_at_1": hit(answerable),
        "answered": hit(answerable, "answered"),
        "filler_share": _share(sum(r["filler"] for r in rows), returned),
        "results_per_question": _share(returned, len(rows)),
        "unrelated_per_no_answer": _share(sum(r["filler"] for r in no_answer), len(no_answer)),
        "counts_to_filler": sum(r["counts_to_filler"] for r in rows),
        "ranking_hit_at_1": hit(answerable, "ranked_first"),
        "bm25_hit_at_1": hit(answerable, "bm25_first"),
        "dense_hit_at_1": hit(answerable, "dense_first"),
        "paraphrase_hit_at_1": hit([r for r in answerable if r["paraphrase"]]),
        "cross_lingual_hit_at_1": hit([r for r in answerable if r["cross_lingual"]]),
        "corrected_hit_at_1": hit([r for r in answerable if r["corrected"]]),
    }


def summarise(rows: Sequence[Row], settings: dict[str, Any]) -> dict[str, Any]:
    """Figures per part and mode, and the fit-test gap in hit@1."""
    modes = sorted({r["mode"] for r in rows}, key=["statements", "user_turns", "all_turns"].index)
    table: dict[str, dict[str, Any]] = {}
    for mode in modes:
        table[mode] = {}
        for part in ("test", "fit"):
            sub = [r for r in rows if r["mode"] == mode and r["part"] == part]
            if sub:
                table[mode][part] = figures(sub)
        fit, test = table[mode].get("fit"), table[mode].get("test")
        if fit and test and fit["hit_at_1"] is not None and test["hit_at_1"] is not None:
            table[mode]["gap"] = fit["hit_at_1"] - test["hit_at_1"]
    return {"settings": settings, "by_mode": table}


def _f(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


COLUMNS = (
    ("hit@1", "hit_at_1"),
    ("filler", "filler_share"),
    ("unrelated / no-answer", "unrelated_per_no_answer"),
    ("counts to filler", "counts_to_filler"),
    ("ranking hit@1", "ranking_hit_at_1"),
    ("BM25 hit@1", "bm25_hit_at_1"),
    ("dense hit@1", "dense_hit_at_1"),
    ("paraphrase", "paraphrase_hit_at_1"),
    ("cross-lingual", "cross_lingual_hit_at_1"),
    ("corrected", "corrected_hit_at_1"),
    ("results / question", "results_per_question"),
    ("questions", "questions"),
)


def markdown(report: dict[str, Any]) -> str:
    """The report as a Markdown table: test first (the headline), fit beside it."""
    lines = [
        f"embedding: {report['settings'].get('embedding')}",
        "",
        "| mode | part | " + " | ".join(c for c, _ in COLUMNS) + " |",
        "|---|---|" + "---:|" * len(COLUMNS),
    ]
    for mode, parts in report["by_mode"].items():
        for part in ("test", "fit"):
            if part in parts:
                cells = " | ".join(_f(parts[part][k]) for _, k in COLUMNS)
                lines.append(f"| {mode} | {part} | {cells} |")
        if "gap" in parts:
            lines.append(
                f"| {mode} | gap (fit − test hit@1) | {_f(parts['gap'])} |"
                + " |" * (len(COLUMNS) - 1)
            )
    return "\n".join(lines) + "\n"
