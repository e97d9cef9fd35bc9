"""What a recall would cost if it did nothing but its one necessary statement.

``python -m bench.diagnose`` replays, after its recalls, the BM25 statements they ran
(as the driver's SQL, each in a reader of its own) next to the bench's recall floor and a
reader that runs nothing. A recall must check out a reader and run its BM25 statement,
so the two together bound from below what any recall of these queries can cost, whatever
its Python does; the gap between that and the measured recall is everything else. The bench
reports recall's p50 next to the floor: this says how much of it the statement leaves.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bench.scenarios import FLOOR_RECALL_SQL
from services.core.db import Database


@dataclass(frozen=True)
class Bounds:
    """Medians in milliseconds."""

    floor: float  # the bench's floor: an indexed top 10 by importance, in a reader
    checkout: float  # a reader checked out and returned, no statement
    least_recall: float  # a reader and the BM25 statement (the driver's SQL), nothing else

    def render(self) -> str:
        """The bounds, and the least recall as a multiple of the floor."""
        return "\n".join(
            [
                "bounds (median ms, replayed after the recalls, interleaved):",
                f"  {'floor':<46} {self.floor:8.2f}",
                f"  {'a reader alone':<46} {self.checkout:8.2f}",
                f"  {'a reader and the BM25 statement, nothing else':<46}"
                f" {self.least_recall:8.2f}  {self.least_recall / self.floor:5.2f}x the floor",
            ]
        )


async def measure_bounds(
    db: Database, user: str, statements: Sequence[tuple[str, Any]], reps: int
) -> Bounds:
    """Replay ``statements`` (SQL and driver parameters, as the cursor events saw them)
    ``reps`` times each, every one beside a floor query and an empty reader."""

    async def floor(_sql: str, _params: Any) -> None:
        async with db.reader() as session:
            (await session.execute(FLOOR_RECALL_SQL, {"u": user})).all()

    async def checkout(_sql: str, _params: Any) -> None:
        async with db.reader() as session:
            await session.connection()

    async def statement(sql: str, params: Any) -> None:
        async with db.reader() as session:
            connection = await session.connection()
            (await connection.exec_driver_sql(sql, params)).all()

    runs = [floor, checkout, statement]  # in the order of Bounds' fields
    times: list[list[float]] = [[] for _ in runs]
    await floor("", None)  # warm the pool
    for rep in range(reps):
        for i, (sql, params) in enumerate(statements):
            turn = (i + rep) % len(runs)  # each goes first as often as the others
            for k in [*range(turn, len(runs)), *range(turn)]:
                start = time.perf_counter()
                await runs[k](sql, params)
                times[k].append(time.perf_counter() - start)
    return Bounds(*(statistics.median(spent) * 1000 for spent in times))
