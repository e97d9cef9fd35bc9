"""One benchmark run: plan the data once, then per backend load, measure and clean up."""

from __future__ import annotations

import asyncio
import os
import platform
import sqlite3
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import sqlalchemy
from sqlalchemy import text

from api.server.heap import freeze_startup_heap
from bench import scenarios
from bench.config import NOW, BenchClock, bench_settings
from bench.db import fresh_database
from bench.footprint import count_memories
from bench.http_load import RECALL_SHARE
from bench.load import load_tenant, settle
from bench.plan import Plan, plan_tenant
from bench.replay import Replay, replay
from bench.scales import Scale, tenant_name
from bench.steps import STEPS, BackendRun, Log
from services.core.db import Database, build_engine
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer

DEFAULT_SEED = 20260101
INGEST_SEED_OFFSET = 999_999
FILLER_SEED_OFFSET = 500_000

_T0 = time.perf_counter()


def _stderr(message: str) -> None:
    print(f"{time.perf_counter() - _T0:7.1f}s {message}", file=sys.stderr, flush=True)


async def _plan(seed: int, size: int, analyzer: TextAnalyzer, settings: Settings, log: Log) -> Plan:
    start = time.perf_counter()
    plan = await asyncio.to_thread(plan_tenant, seed, size, analyzer, settings, NOW)
    log(
        f"  planned {size} memories ({len(plan.statements)} statements, "
        f"{plan.dropped_near_duplicates} near-duplicates dropped) in "
        f"{time.perf_counter() - start:.1f}s"
    )
    return plan


async def _server_version(db: Database) -> str:
    query = "SHOW server_version" if db.dialect == "postgresql" else "SELECT sqlite_version()"
    async with db.engine.connect() as conn:
        return str((await conn.execute(text(query))).scalar_one())


async def _load(
    db: Database,
    settings: Settings,
    user: str,
    plan: Plan,
    state: Replay | None = None,
    *,
    log: Log,
) -> dict[str, Any]:
    start = time.perf_counter()
    loaded = await load_tenant(db, settings, user, plan, NOW, state)
    seconds = time.perf_counter() - start
    log(f"  loaded {user}: {loaded.memories} memories in {seconds:.1f}s")
    created = [a for a, c in zip(plan.analyses, plan.creates, strict=True) if c]
    tagged = sum(a.emotion_score >= settings.emotion_floor_min_weight for a in created)
    return {
        "user_id": user,
        "memories": loaded.memories,
        "statements": loaded.statements,
        "merged_statements": loaded.statements - loaded.memories,
        "near_duplicates_dropped": plan.dropped_near_duplicates,
        "emotion_tagged_share": tagged / max(len(created), 1),
        "mean_characters": sum(len(s.content) for s in plan.statements)
        / max(len(plan.statements), 1),
        "rows": loaded.rows,
        "seconds": seconds,
    }


async def run_backend(
    backend: str,
    scale: Scale,
    plans: dict[int, tuple[Plan, Replay]],
    ingest_plan: Plan,
    settings: Settings,
    analyzer: TextAnalyzer,
    *,
    seed: int,
    tmp_dir: Path,
    pg_server: str | None,
    log: Log,
) -> dict[str, Any]:
    """Load the tenants into a fresh database of ``backend`` and run every scenario."""
    started = time.perf_counter()
    log(f"[{backend}] fresh database")
    async with fresh_database(backend, tmp_dir, pg_server) as url:
        db = Database(build_engine(url, pool_size=4))
        try:
            version = await _server_version(db)
            loads = [
                await _load(db, settings, tenant_name(size), *plans[size], log=log)
                for size in scale.tenants
            ]
            # Filler tenants only make the database as big as the full scale asks (tables
            # and indexes of 1M memories); none is measured. Each size is planned once
            # and loaded under every filler user id: planning (analysis and the
            # near-duplicate filter) costs about four times the load itself.
            filler_plans: dict[int, Plan] = {}
            for i, size in enumerate(scale.filler(backend)):
                if size not in filler_plans:
                    filler_plans[size] = await _plan(
                        seed + FILLER_SEED_OFFSET + size, size, analyzer, settings, log
                    )
                loads.append(
                    await _load(db, settings, f"filler-{i:03d}", filler_plans[size], log=log)
                )
            await settle(db)
            total = await count_memories(db)
            # This process stands in for a started server, which parks its startup heap
            # (api/server/heap.py); here that heap also holds every tenant's plan, millions of
            # objects at full scale that a full collection would walk mid-measurement.
            if settings.freeze_startup_heap:
                freeze_startup_heap()
            ctx = scenarios.Context(db, settings, analyzer, BenchClock(NOW), scale.reps, seed)
            run = BackendRun(
                backend, url, ctx, scale, total, ingest_plan, tmp_dir, log, pg_server=pg_server
            )
            for name, step in STEPS:
                section = await step(run)
                if section is not None:
                    run.results[name] = section
        finally:
            await db.dispose()
    return {
        "server_version": version,
        "total_memories": total,
        "load": loads,
        **run.results,
        "seconds": time.perf_counter() - started,
    }


async def run_bench(
    backends: list[str],
    scale: Scale,
    *,
    seed: int = DEFAULT_SEED,
    pg_server: str | None = None,
    tmp_dir: Path | None = None,
    log: Log = _stderr,
) -> dict[str, Any]:
    """Every scenario on every backend; the JSON-ready results."""
    started, started_at = time.perf_counter(), datetime.now(UTC)
    settings = bench_settings()
    analyzer = TextAnalyzer(settings)
    await asyncio.to_thread(analyzer.warm)
    log(f"planning {scale.name}: tenants {list(scale.tenants)}")
    plans: dict[int, tuple[Plan, Replay]] = {}
    for size in scale.tenants:
        plan = await _plan(seed + size, size, analyzer, settings, log)
        plans[size] = plan, await asyncio.to_thread(replay, plan, settings, NOW)
    ingest_plan = await _plan(
        seed + INGEST_SEED_OFFSET, scale.ingest_batch, analyzer, settings, log
    )
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(dir=tmp_dir) as tmp:
        for backend in backends:
            results[backend] = await run_backend(
                backend,
                scale,
                plans,
                ingest_plan,
                settings,
                analyzer,
                seed=seed,
                tmp_dir=Path(tmp),
                pg_server=pg_server,
                log=log,
            )
    return {
        "generated_by": f"python -m bench --scale {scale.name}",
        "scale": scale.name,
        "seed": seed,
        "started_at": started_at.isoformat(timespec="seconds"),
        "service_clock": NOW.isoformat(),
        "config": {
            "tenants": list(scale.tenants),
            "postgresql_total_memories": scale.pg_total or None,
            "filler_tenant": scale.filler_tenant,
            "repetitions": scale.reps,
            "queries_per_repetition": scale.queries,
            "top_k": scenarios.TOP_K,
            "ingest_batch": scale.ingest_batch,
            "ingest_tenant": scale.ingest_tenant,
            "rescore_batch_size": settings.rescore_batch_size,
            "recall_candidates": settings.recall_candidates,
            "topic_links_per_memory": settings.topic_links_per_memory,
            "rescore_recall_tenant": scale.rescore_recall_tenant,
            "load_clients": scale.load_clients,
            "load_seconds": scale.load_seconds,
            "load_repetitions": scale.load_reps,
            "load_workers": scale.load_workers,
            "load_recall_share": RECALL_SHARE,
            "soak_clients": scale.soak_clients,
            "soak_seconds": scale.soak_seconds,
            "soak_windows": scale.soak_windows,
            "flood_store": scale.flood_store,
            "flood_recalls": scale.flood_recalls,
            "flood_notes": scale.flood_notes,
            "flood_new": scale.flood_new,
            "flood_clients": scale.flood_clients,
            "flood_vector_wait": scale.flood_vector_wait,
            "steps": [name for name, _ in STEPS],
        },
        "machine": {
            "cpu_count": os.cpu_count(),
            "python": platform.python_version(),
            "platform": platform.platform(),
            "sqlalchemy": sqlalchemy.__version__,
            "sqlite": results.get("sqlite", {}).get("server_version", sqlite3.sqlite_version),
            "postgresql": results.get("postgresql", {}).get("server_version"),
        },
        "backends": results,
        "seconds": time.perf_counter() - started,
    }
