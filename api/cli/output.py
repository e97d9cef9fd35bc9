"""What the CLI prints for people: tables, a compact --explain, ISO 8601 times.

``--json`` prints the machine form instead (the API's JSON shapes). Tables are drawn by
``rich``, which measures Chinese characters as two columns wide, so columns stay aligned
in a terminal whatever the script.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from pydantic_core import to_jsonable_python
from rich import box
from rich.console import Console
from rich.table import Table

from api.presenters import iso
from services.recall.recall_service import RecallHit

# Matched terms shown per hit in --explain, by contribution.
EXPLAIN_TERMS = 5


def print_json(data: Any) -> None:
    """Indented JSON; times as the API writes them (ISO 8601, ``Z`` for UTC)."""
    print(json.dumps(data, ensure_ascii=False, indent=2, default=to_jsonable_python))


def console() -> Console:
    """Standard output; 100 columns when it is not a terminal (a pipe, a file)."""
    return Console(file=sys.stdout, width=None if sys.stdout.isatty() else 100)


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, wrap: str = "") -> Table:
    """A plain table; the column named ``wrap`` takes the width that is left."""
    drawn = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    for header in headers:
        if header == wrap:
            drawn.add_column(header, overflow="fold", ratio=1)
        else:
            numeric = header in {"#", "score", "confidence", "messages", "memories", "merged"}
            drawn.add_column(header, justify="right" if numeric else "left", no_wrap=True)
    for row in rows:
        drawn.add_row(*(str(cell) for cell in row))
    return drawn


def print_table(headers: Sequence[str], rows: Iterable[Sequence[Any]], *, wrap: str = "") -> None:
    console().print(table(headers, rows, wrap=wrap))


def confidence(hit: RecallHit) -> float | None:
    """Recall's calibrated confidence that the memory answers the query
    (services/recall/confidence.py; the fused score only ranks). None for an empty
    query's hits, which are ranked by importance alone."""
    return hit.confidence


def recall_table(hits: Sequence[RecallHit]) -> Table:
    """Rank, score, confidence (when any hit has one), level, type, date, content."""
    with_confidence = any(confidence(h) is not None for h in hits)
    headers = ["#", "score", *(["confidence"] if with_confidence else [])]
    headers += ["level", "type", "date", "content"]
    rows = []
    for rank, hit in enumerate(hits, start=1):
        memory = hit.memory
        known = confidence(hit)
        cells: list[Any] = [rank, f"{hit.score:.3f}"]
        if with_confidence:
            cells.append("-" if known is None else f"{known:.2f}")
        cells += [memory.importance_level, memory.memory_type, iso(memory.created_at)]
        rows.append([*cells, memory.content])
    return table(headers, rows, wrap="content")


def _parts(named: dict[str, Any], *, key: str = "contribution") -> str:
    shown = [(name, part[key]) for name, part in named.items() if part and part.get(key)]
    return " + ".join(f"{name} {value:.3f}" for name, value in shown) or "nothing"


def explain_lines(rank: int, hit: RecallHit) -> list[str]:
    """A few lines on why ``hit`` ranked where it did, from its explanation."""
    why = hit.explanation or {}
    head = f"{rank}. memory {hit.memory.id}: score {hit.score:.3f}"
    lines = [f"{head} = {_parts(why.get('signals', {}))}"]
    if why.get("mode") not in (None, "fused"):
        lines[0] = f"{head}, by importance (the query has no terms)"
    if hit.evidence is not None and hit.confidence is not None:
        e = hit.evidence
        found = [f"terms {' '.join(e.terms)}"] if e.terms else []
        found += [f"{n} {v:.2f}" for n, v in (("time", e.time), ("feeling", e.feeling)) if v]
        if e.context_of is not None:
            found.append(f"context of memory {e.context_of}")
        lines.append(f"   confidence {hit.confidence:.2f}: " + (", ".join(found) or "nothing"))
    relevance = why.get("relevance") or {}
    terms = [t for t in relevance.get("matched_terms", []) if t.get("kind") == "word"]
    terms.sort(key=lambda t: -float(t.get("contribution", 0.0)))
    if terms:
        shown = " · ".join(f"{t['term']} {t['contribution']:.2f}" for t in terms[:EXPLAIN_TERMS])
        lines.append(f"   matched {shown} (BM25 {relevance.get('bm25', 0.0):.2f})")
    importance = why.get("importance") or {}
    if importance:
        lines.append(
            f"   importance {importance['score']:.3f} ({importance['level']}) = "
            + _parts(importance.get("components", {}))
        )
    rerank = why.get("rerank")
    if rerank:
        lines.append(
            "   rerank "
            + ", ".join(
                f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in rerank.items()
            )
        )
    return lines


def print_recall(hits: Sequence[RecallHit], *, explain: bool) -> None:
    out = console()
    if not hits:
        out.print("no memories")
        return
    out.print(recall_table(hits))
    if explain:
        for rank, hit in enumerate(hits, start=1):
            for line in explain_lines(rank, hit):
                out.print(line, markup=False, highlight=False)
