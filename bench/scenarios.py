"""The measured scenarios, each next to its floor, measured side by side in one run.

- recall: ``RecallService.recall_memories`` (top 10, track=False and track=True) as the
  route runs it (``services.recall.tracked.recall_and_track``), and the same over HTTP,
  against the floor ``SELECT * FROM user_memories WHERE user_id = :u ORDER BY
  importance_score DESC LIMIT 10`` (served by ix_user_memories_user_importance) in a
  reader, as recall ranks.
  Per query the four are run back to back in a rotating order; ratio = p50 / floor p50.
- ingest: ``MemoryService.add_many`` of a batch of new statements in one unit of work,
  rolled back afterwards so every repetition meets the same tenant (the commit is not
  timed), against the floor ``TextAnalyzer.analyze`` of the same texts without a
  database. ratio = ingest rate / floor rate.
- rescore: ``services.scoring.jobs.run_rescore`` over every row, an hour later each repetition,
  against the floor, one bare ``UPDATE user_memories SET importance_score = 0.35 * 0.5 +
  0.2`` over the same rows (rolled back, so the scores the job compares with stay
  real). ratio = rescore time / floor time.

Recall during rescoring (bench/rescore_recall.py) and HTTP under load with the server's
RSS (bench/http_load.py) build on these; bench/steps.py runs them all in order.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import text

from api.app import create_app
from bench.config import BenchClock
from bench.data import Generator
from bench.measure import LatencySeries, median, ratio, throughput, timed
from bench.plan import METADATA, SOURCE, Statement
from services.composition import Services
from services.core.db import Database
from services.core.settings import Settings
from services.recall.tracked import recall_and_track
from services.remembering.memory_service import NewMemory
from services.scoring.jobs import run_rescore
from services.text.analysis import TextAnalyzer

TOP_K = 10
FLOOR_RECALL_SQL = text(
    "SELECT * FROM user_memories WHERE user_id = :u ORDER BY importance_score DESC LIMIT 10"
)
FLOOR_RESCORE_SQL = text("UPDATE user_memories SET importance_score = 0.35 * 0.5 + 0.2")


@dataclass
class Context:
    """What every scenario needs for one backend."""

    db: Database
    settings: Settings
    analyzer: TextAnalyzer
    clock: BenchClock
    reps: int
    seed: int

    @functools.cached_property
    def services(self) -> Services:
        """The composition root's services for this backend (built once)."""
        return Services(self.settings, self.db, self.analyzer, self.clock)


async def recall(
    ctx: Context, tenants: list[tuple[str, int]], queries: int, http: bool = True
) -> list[dict[str, Any]]:
    """Recall latency per tenant, next to the indexed top-k floor."""
    app = create_app(ctx.settings, db=ctx.db, clock=ctx.clock)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://bench") as client:
            return [
                await _recall_tenant(ctx, user, size, queries, client if http else None)
                for user, size in tenants
            ]


async def recall_once(ctx: Context, user: str, query: str, *, track: bool) -> None:
    """One recall of the top ``TOP_K`` as ``POST /recall`` runs it: ranked in a reader,
    its hits counted in a unit of work of their own (services/recall/tracked.py)."""

    await recall_and_track(ctx.db, ctx.services.recall, user, query, TOP_K, track=track)


class RescoreFailed(RuntimeError):
    """A rescoring run ended other than ``succeeded``."""


async def rescore_all(ctx: Context) -> int:
    """``run_rescore`` over every memory, the clock an hour later; the rows it rescored."""
    ctx.clock.now += timedelta(hours=1)
    run = await run_rescore(ctx.db, ctx.settings, ctx.clock, trigger="bench")
    if run.status != "succeeded":
        raise RescoreFailed(f"rescoring run {run.id} {run.status}: {run.error}")
    return run.rows


async def _recall_tenant(
    ctx: Context, user: str, size: int, queries: int, client: httpx.AsyncClient | None
) -> dict[str, Any]:
    gen = Generator(ctx.seed + size)
    names = ["floor", "recall", "recall_tracked"] + (["recall_http"] if client else [])
    series = {name: LatencySeries() for name in names}

    async def floor(query: str) -> None:
        # In a reader, as recall ranks: neither pays a BEGIN/COMMIT the other skips.
        async with ctx.db.reader() as session:
            (await session.execute(FLOOR_RECALL_SQL, {"u": user})).all()

    async def service(query: str, track: bool) -> None:
        await recall_once(ctx, user, query, track=track)

    async def over_http(query: str) -> None:
        assert client is not None
        body = {"query": query, "top_k": TOP_K, "track": False}
        response = await client.post(f"/v1/users/{user}/recall", json=body)
        response.raise_for_status()

    actions: dict[str, Callable[[str], Awaitable[None]]] = {
        "floor": floor,
        "recall": lambda q: service(q, False),
        "recall_tracked": lambda q: service(q, True),
        "recall_http": over_http,
    }
    await floor("")  # warm the connection pool and statement caches
    await service(gen.query(), False)
    for _ in range(ctx.reps):
        for s in series.values():
            s.new_rep()
        for i in range(queries):
            query = gen.query()
            for k in range(len(names)):
                name = names[(i + k) % len(names)]
                series[name].add(await timed(functools.partial(actions[name], query)))
    result: dict[str, Any] = {"user_id": user, "memories": size, "queries": queries}
    result.update({name: s.summary_ms() for name, s in series.items()})
    for name in names[1:]:
        result[f"{name}_ratio_p50"] = ratio(result[name]["p50"], result["floor"]["p50"])
    return result


async def ingest(ctx: Context, user: str, size: int, statements: list[Statement]) -> dict[str, Any]:
    """add_many of ``statements`` into ``user`` (rolled back) vs analysis alone."""
    items = [
        NewMemory(s.content, s.memory_type, SOURCE, dict(METADATA), created_at=ctx.clock.now)
        for s in statements
    ]
    texts = [s.content for s in statements]
    merged: list[int] = []

    async def through_service() -> None:
        async with ctx.db.sessionmaker() as session:
            transaction = await session.begin()
            try:
                service = ctx.services.memories(session)
                stored = await service.add_many(user, items)
                merged.append(sum(s.merged for s in stored))
            finally:
                await transaction.rollback()

    async def analysis_only() -> None:
        await asyncio.to_thread(lambda: [ctx.analyzer.analyze(t) for t in texts])

    service_times: list[float] = []
    floor_times: list[float] = []
    for _ in range(ctx.reps):
        floor_times.append(await timed(analysis_only))
        service_times.append(await timed(through_service))
    ingest_stats = throughput(len(items), service_times)
    floor_stats = throughput(len(items), floor_times)
    return {
        "user_id": user,
        "tenant_memories": size,
        "batch": len(items),
        "merged_per_batch": median([float(m) for m in merged]),
        "ingest": ingest_stats,
        "floor": floor_stats,
        "ratio": ratio(ingest_stats["per_second"], floor_stats["per_second"]),
    }


async def rescore(ctx: Context, rows: int) -> dict[str, Any]:
    """run_rescore over every memory vs one bare UPDATE of every memory."""

    async def floor() -> None:
        async with ctx.db.sessionmaker() as session:
            transaction = await session.begin()
            try:
                await session.execute(FLOOR_RESCORE_SQL)
            finally:
                await transaction.rollback()

    rescored: list[int] = []

    async def job() -> None:
        rescored.append(await rescore_all(ctx))

    job_times: list[float] = []
    floor_times: list[float] = []
    for _ in range(ctx.reps):
        floor_times.append(await timed(floor))
        job_times.append(await timed(job))
    if any(n != rows for n in rescored):
        raise RuntimeError(f"run_rescore rescored {rescored}, expected {rows} rows each time")
    job_stats = throughput(rows, job_times)
    floor_stats = throughput(rows, floor_times)
    return {
        "rows": rows,
        "batch_size": ctx.settings.rescore_batch_size,
        "rescore": job_stats,
        "floor": floor_stats,
        "ratio": ratio(job_stats["seconds"], floor_stats["seconds"]),
    }
