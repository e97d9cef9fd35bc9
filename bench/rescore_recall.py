"""Recall while rescoring runs ("the server still answering recalls").

Per repetition, one tenant's recalls run one at a time, each in its own unit of work on
its own pooled connection, first alone ("idle") and then while ``run_rescore`` rescores
every memory in the same process and database ("during"). The recalls are tracked
(``track=True``, what the API does by default), so they write rows the job's batches
also write: any lock the job holds shows up in their latency. After each recall the
client pauses as long as the recall took, so recalls keep the database busy half of
the time: back to back, they would starve the job on SQLite, whose busy handler is not
fair to a waiting writer. A recall counts as "during" when it starts before the job has
finished; there is always at least one. The idle window lasts as long as the rescoring
run measured alone (at most ``IDLE_CAP_SECONDS``), with at least ``min_queries``
recalls. A recall or a run that fails (a deadlock, a lock timeout) is counted and its
message kept, not timed. Reported: both p50/p95/p99, ratio = p99 during / p99 idle, and
the job's time with recalls beside its time alone.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from typing import Any

from sqlalchemy.exc import DBAPIError

from bench.data import Generator
from bench.measure import LatencySeries, median, ratio
from bench.scenarios import Context, RescoreFailed, recall_once, rescore_all

IDLE_CAP_SECONDS = 10.0
ERROR_SAMPLES = 5
# The queries come from seed + BUSY_SEED_OFFSET, apart from the recall scenario's.
BUSY_SEED_OFFSET = 300_000


class BusyRecalls:
    """One tenant's paced recalls: latencies per phase, failures by kind."""

    def __init__(self, ctx: Context, user: str) -> None:
        self.ctx, self.user = ctx, user
        self.gen = Generator(ctx.seed + BUSY_SEED_OFFSET)
        self.idle, self.during = LatencySeries(), LatencySeries()
        self.errors: Counter[str] = Counter()
        self.error_samples: list[str] = []

    def error(self, kind: str, exc: Exception) -> None:
        """Count a failure; keep the first few messages."""
        self.errors[kind] += 1
        if len(self.error_samples) < ERROR_SAMPLES:
            self.error_samples.append(f"{kind}: {type(exc).__name__}: {exc}"[:300])

    async def recall(self, series: LatencySeries) -> None:
        """One tracked recall into ``series``, then a pause as long as it took."""
        start = time.perf_counter()
        try:
            await recall_once(self.ctx, self.user, self.gen.query(), track=True)
        except DBAPIError as exc:
            self.error("recall", exc)
        else:
            series.add(time.perf_counter() - start)
        await asyncio.sleep(time.perf_counter() - start)

    async def idle_window(self, seconds: float, min_queries: int) -> None:
        """Recalls alone for ``seconds`` and at least ``min_queries`` of them."""
        deadline, count = time.perf_counter() + seconds, 0
        while count < min_queries or time.perf_counter() < deadline:
            await self.recall(self.idle)
            count += 1

    async def during_rescore(self, rows: int) -> float | None:
        """Recalls while every memory is rescored; the run's seconds (None if it failed)."""

        async def job() -> float:
            start = time.perf_counter()
            rescored = await rescore_all(self.ctx)
            if rescored != rows:
                raise RuntimeError(f"run_rescore rescored {rescored} rows, expected {rows}")
            return time.perf_counter() - start

        task = asyncio.create_task(job())
        try:
            while True:
                await self.recall(self.during)
                if task.done():
                    break
        finally:
            await asyncio.wait([task])  # never leave the job running behind a failed recall
        try:
            return task.result()
        except RescoreFailed as exc:
            self.error("rescore", exc)
            return None


async def recall_during_rescore(
    ctx: Context,
    user: str,
    size: int,
    rows: int,
    *,
    alone_seconds: float,
    min_queries: int,
) -> dict[str, Any]:
    """p99 of ``user``'s recalls while every memory is rescored, beside without."""
    busy = BusyRecalls(ctx, user)
    job_seconds: list[float] = []
    for _ in range(ctx.reps):
        busy.idle.new_rep()
        busy.during.new_rep()
        await busy.idle_window(min(alone_seconds, IDLE_CAP_SECONDS), min_queries)
        seconds = await busy.during_rescore(rows)
        if seconds is not None:
            job_seconds.append(seconds)
    result: dict[str, Any] = {
        "user_id": user,
        "memories": size,
        "rows": rows,
        "idle": busy.idle.summary_ms(),
        "during": busy.during.summary_ms(),
        "rescore_seconds": median(job_seconds) if job_seconds else None,
        "rescore_seconds_alone": alone_seconds,
        "errors": dict(busy.errors),
        "error_count": sum(busy.errors.values()),
        "error_samples": busy.error_samples,
    }
    result["ratio_p99"] = ratio(result["during"]["p99"], result["idle"]["p99"])
    return result
