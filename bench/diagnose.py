"""``python -m bench.diagnose``: where one tenant's recall time goes, statement by statement.

The benchmark says how far recall is from its floor; this says why. It loads one bench
tenant into a scratch database of its own (as ``python -m bench`` does, VACUUM ANALYZEd
on PostgreSQL), runs the bench's recall queries untracked, as the bench's recall
measurement does, and splits every recall's wall time into

- each SQL statement it ran, from the driver's cursor events (the round trip, the
  server's work and the driver's decoding of the rows), labelled by what it reads;
- everything else: ranking in Python, SQLAlchemy's statement handling, the connection.

It prints the medians per recall, and the slowest queries with their split. Then it
replays the recalls' BM25 statements alone beside the floor (bench/recall_bounds.py):
the least any recall of these queries could cost. With ``--track`` the recalls are
tracked, as a chat turn sends them (the bench's "tracked" column), and the counting's
statements are split out too (``count``; on SQLite also ``history`` and ``rescore``). Earlier
sessions rebuilt this as scratch scripts each time; the numbers in their
closing notes came from such scripts.
"""

from __future__ import annotations

import argparse
import asyncio
import re
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import event

from bench.recall_bounds import Bounds, measure_bounds
from bench.runner import DEFAULT_SEED
from bench.scenarios import TOP_K
from bench.scratch import bench_queries, scratch_tenant
from services.core.db import Database
from services.recall.tracked import recall_and_track

# What a statement reads, by the tables it names, first match wins.
_LABELS = (
    # A tracked recall's counting: one statement on PostgreSQL, three on SQLite.
    ("count", re.compile(r"^WITH counted\b|\brecall_count \+")),
    ("history", re.compile(r"^INSERT INTO memory_score_history\b")),
    ("rescore", re.compile(r"^UPDATE user_memories\b")),
    # The evidence's postings of the returned hits (services/recall/recall_service.py).
    ("postings", re.compile(r"^SELECT memory_terms\.memory_id, memory_terms\.term\b")),
    ("bm25", re.compile(r"\bmemory_terms\b")),
    ("neighbours", re.compile(r"\banchor_id\b")),
    ("memories", re.compile(r"\bFROM user_memories\b")),
)
OUTSIDE = "outside statements"


def statement_label(sql: str) -> str:
    """A short name for one statement of the recall path."""
    for label, pattern in _LABELS:
        if pattern.search(sql):
            return label
    return " ".join(sql.split())[:40]


@dataclass
class Split:
    """One recall's wall time and its statements' times, in seconds."""

    total: float = 0.0
    statements: dict[str, float] = field(default_factory=dict)
    calls: Counter[str] = field(default_factory=Counter)
    bm25: tuple[str, Any] | None = None  # its BM25 statement's SQL and driver parameters

    @property
    def outside(self) -> float:
        return self.total - sum(self.statements.values())


class StatementClock:
    """Times every statement an engine runs into the current :class:`Split`."""

    def __init__(self, db: Database) -> None:
        self.current: Split | None = None
        self._started: dict[int, float] = {}
        engine = db.engine.sync_engine
        event.listen(engine, "before_cursor_execute", self._before)
        event.listen(engine, "after_cursor_execute", self._after)

    def _before(self, _conn: Any, cursor: Any, *_args: Any) -> None:
        self._started[id(cursor)] = time.perf_counter()

    def _after(self, _conn: Any, cursor: Any, sql: str, params: Any, *_args: Any) -> None:
        started = self._started.pop(id(cursor), None)
        if self.current is not None and started is not None:
            label = statement_label(sql)
            spent = time.perf_counter() - started
            self.current.statements[label] = self.current.statements.get(label, 0.0) + spent
            self.current.calls[label] += 1
            if label == "bm25":
                self.current.bm25 = (sql, params)

    @contextmanager
    def recall(self) -> Iterator[Split]:
        """Collect one recall's statements; its total is set when the block ends."""
        split = Split()
        self.current = split
        start = time.perf_counter()
        try:
            yield split
        finally:
            split.total = time.perf_counter() - start
            self.current = None


@dataclass(frozen=True)
class Diagnosis:
    """Every recall's split, by query."""

    backend: str
    tenant: str
    memories: int
    splits: dict[str, list[Split]]
    bounds: Bounds | None = None
    tracked: bool = False

    def medians_ms(self, splits: list[Split]) -> dict[str, float]:
        """Median milliseconds per recall: the total, each statement, and the rest."""
        labels = sorted({label for s in splits for label in s.statements})
        out = {"total": statistics.median(s.total for s in splits) * 1000}
        for label in labels:
            out[label] = statistics.median(s.statements.get(label, 0.0) for s in splits) * 1000
        out[OUTSIDE] = statistics.median(s.outside for s in splits) * 1000
        return out

    def render(self, slowest: int = 5) -> str:
        """The medians over every recall, then the slowest queries'."""
        everything = [s for runs in self.splits.values() for s in runs]
        lines = [
            f"recall on {self.tenant} ({self.backend}, {self.memories:,} memories): "
            f"{len(self.splits)} bench queries, {len(everything)} "
            f"{'tracked' if self.tracked else 'untracked'} recalls, "
            f"top {TOP_K}; median ms per recall",
            *_rows(self.medians_ms(everything)),
            "",
            f"slowest {slowest} queries (median ms per recall):",
        ]
        by_total = sorted(
            self.splits, key=lambda q: -statistics.median(s.total for s in self.splits[q])
        )
        for query in by_total[:slowest]:
            medians = self.medians_ms(self.splits[query])
            parts = ", ".join(f"{k} {v:.2f}" for k, v in medians.items() if k != "total")
            lines.append(f"  {medians['total']:7.2f}  {query!r}: {parts}")
        if self.bounds is not None:
            lines += ["", self.bounds.render()]
        return "\n".join(lines)


def _rows(medians: dict[str, float]) -> list[str]:
    total = medians["total"]
    return [
        f"  {name:<20} {value:8.2f}" + (f"  {value / total:6.1%}" if name != "total" else "")
        for name, value in medians.items()
    ]


async def diagnose(
    backend: str,
    size: int,
    queries: int,
    reps: int,
    *,
    seed: int = DEFAULT_SEED,
    pg_server: str | None = None,
    track: bool = False,
) -> Diagnosis:
    """Load the bench's tenant of ``size`` memories and split ``queries`` × ``reps`` recalls
    (counted as recalled with ``track``: the tenant's counts and scores change)."""
    async with scratch_tenant(backend, size, seed, pg_server) as tenant:
        db, user = tenant.db, tenant.user
        clock = StatementClock(db)

        service_for = tenant.services.recall

        asked = bench_queries(seed, size, queries)
        splits: dict[str, list[Split]] = {q: [] for q in asked}
        await recall_and_track(db, service_for, user, asked[0], TOP_K, track=False)
        for _ in range(reps):
            for query in asked:
                with clock.recall() as split:
                    await recall_and_track(db, service_for, user, query, TOP_K, track=track)
                splits[query].append(split)
        replayed = [runs[0].bm25 for runs in splits.values() if runs[0].bm25 is not None]
        bounds = await measure_bounds(db, user, replayed, reps)
        memories = tenant.loaded.memories
    return Diagnosis(backend, user, memories, splits, bounds, track)


def main(argv: list[str] | None = None) -> int:
    """Run and print."""
    parser = argparse.ArgumentParser(prog="python -m bench.diagnose", description=__doc__)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="postgresql")
    parser.add_argument("--tenant", type=int, default=10_000, help="memories of the tenant")
    parser.add_argument("--queries", type=int, default=100)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument(
        "--pg-url",
        default=None,
        help="PostgreSQL server URL (default: $BENCH_DATABASE_URL or the local server)",
    )
    parser.add_argument(
        "--track", action="store_true", help="count the recalls, as a chat turn's recall does"
    )
    args = parser.parse_args(argv)
    result = asyncio.run(
        diagnose(
            args.backend,
            args.tenant,
            args.queries,
            args.reps,
            pg_server=args.pg_url,
            track=args.track,
        )
    )
    print(result.render())
    return 0


if __name__ == "__main__":
    sys.exit(main())
