"""HTTP under load, and the server's memory after it.

One real server (bench/server.py: uvicorn in a subprocess, the bench's database) takes
a bounded closed-loop load (bench/traffic.py) of ``load_clients`` clients for
``load_seconds``: a share ``RECALL_SHARE`` of ``POST /v1/users/{user}/recall`` (top
``TOP_K``, the API's default ``track: true``, as a chat turn sends it) and the rest
``POST /v1/users/{user}/memories`` of new statements, each request for a measured tenant
drawn at random. The floor is the same load of ``GET /healthz``, which touches neither
the database nor the analyzer: what the HTTP stack and the load generator cost. Mix and
floor alternate in ``load_reps`` repetitions; ratio = recall p50 / healthz p50.

Over each window the CPU time of the server, of the PostgreSQL server's processes and of
the load generator is read from /proc (bench/cpu.py) and reported per request: under
busy clients the ratio follows what a request of each kind costs the machine.

Afterwards the server's RSS (VmRSS) is read from /proc and reported next to the size of
the database it serves, and next to its RSS before the load. With ``workers`` > 1 the
server is ``workers`` processes (api/server/workers.py) and the RSS is their sum.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.cpu import CpuSampler
from bench.data import Generator
from bench.footprint import count_memories, database_bytes, process_tree_memory_mib
from bench.measure import LatencySeries, median, ratio
from bench.scenarios import TOP_K, Context
from bench.server import running_server
from bench.traffic import (
    ERROR_SAMPLES,
    Request,
    RequestSource,
    Window,
    load_clients,
    run_window,
)

RECALL_SHARE = 0.8
KINDS = ("recall", "add", "healthz")
# Clients of repetition r draw from seeds seed + LOAD_SEED_OFFSET + r * clients + i.
LOAD_SEED_OFFSET = 700_000
HEALTHZ = Request("healthz", "GET", "/healthz")


def mix_source(users: list[str], seed: int) -> RequestSource:
    """Each client's endless 80/20 recall/add requests from its own seed."""

    def client(i: int) -> Iterator[Request]:
        rng, gen = random.Random(seed + i), Generator(seed + i)
        while True:
            user = rng.choice(users)
            if rng.random() < RECALL_SHARE:
                body: dict[str, Any] = {"query": gen.query(), "top_k": TOP_K}
                yield Request("recall", "POST", f"/v1/users/{user}/recall", body)
            else:
                content, memory_type = gen.text()
                body = {"content": content, "memory_type": memory_type}
                yield Request("add", "POST", f"/v1/users/{user}/memories", body)

    return client


def healthz_source(_client: int) -> Iterator[Request]:
    """The floor: only ``GET /healthz``."""
    return itertools.repeat(HEALTHZ)


class LoadTally:
    """Latencies per kind, rates per phase and errors over every repetition."""

    def __init__(self) -> None:
        self.series = {kind: LatencySeries() for kind in KINDS}
        self.rates: dict[str, list[float]] = {kind: [] for kind in (*KINDS, "mix")}
        self.errors: Counter[str] = Counter()
        self.error_samples: list[str] = []
        # Per phase: CPU seconds per party and the requests they served, over every rep.
        self.cpu: dict[str, Counter[str]] = {"mix": Counter(), "healthz": Counter()}
        self.served: Counter[str] = Counter()

    def new_rep(self) -> None:
        """Start a repetition."""
        for s in self.series.values():
            s.new_rep()

    def add(self, window: Window, kinds: tuple[str, ...]) -> None:
        """One window's samples, rates and errors."""
        for kind in kinds:
            for seconds in window.latencies.get(kind, []):
                self.series[kind].add(seconds)
            self.rates[kind].append(ratio(window.completed(kind), window.seconds))
        if len(kinds) > 1:
            self.rates["mix"].append(ratio(window.completed(), window.seconds))
        if window.cpu_seconds:
            phase = "mix" if len(kinds) > 1 else kinds[0]
            self.cpu[phase].update(window.cpu_seconds)
            self.served[phase] += window.completed()
        self.errors.update(window.errors)
        self.error_samples.extend(window.error_samples[: ERROR_SAMPLES - len(self.error_samples)])

    def summary(self) -> dict[str, Any]:
        """Per kind p50/p95/p99 and the median rate; the mix's rate; errors."""
        out: dict[str, Any] = {}
        for kind in KINDS:
            out[kind] = self.series[kind].summary_ms()
            out[kind]["per_second"] = median(self.rates[kind])
        out["requests_per_second"] = median(self.rates["mix"])
        # CPU milliseconds per request, per phase and party, over every repetition.
        out["cpu_ms_per_request"] = {
            phase: {party: 1000 * s / self.served[phase] for party, s in spent.items()}
            for phase, spent in self.cpu.items()
            if self.served[phase]
        }
        out["errors"] = dict(self.errors)
        out["error_count"] = sum(self.errors.values())
        out["error_samples"] = self.error_samples
        return out


async def http_under_load(
    ctx: Context,
    database_url: str,
    users: list[str],
    *,
    clients: int,
    seconds: float,
    reps: int,
    log_path: Path,
    workers: int = 1,
) -> dict[str, Any]:
    """The mix and the /healthz floor, alternating, then the server's RSS."""
    tally = LoadTally()
    async with running_server(database_url, ctx.clock.now, log_path, workers) as server:
        idle = process_tree_memory_mib(server.pid)
        cpu = CpuSampler(server.pid, database=ctx.db.dialect == "postgresql")
        for rep in range(reps):
            tally.new_rep()
            mix = mix_source(users, ctx.seed + LOAD_SEED_OFFSET + rep * clients)
            phases: list[tuple[RequestSource, tuple[str, ...]]] = [
                (mix, ("recall", "add")),
                (healthz_source, ("healthz",)),
            ]
            # Alternate which goes first, so neither always meets a warmer server.
            for source, kinds in phases[:: 1 if rep % 2 == 0 else -1]:
                async with load_clients(server.base_url, clients) as http:
                    tally.add(await run_window(http, seconds, source, cpu), kinds)
        after = process_tree_memory_mib(server.pid)
    result = tally.summary()
    result.update(
        {
            "clients": clients,
            "workers": workers,
            "seconds": seconds,
            "repetitions": reps,
            "recall_share": RECALL_SHARE,
            "users": users,
            "ratio_p50": ratio(result["recall"]["p50"], result["healthz"]["p50"]),
            "server": {
                "rss_mib_before_load": idle["rss"] if idle else None,
                "rss_mib_after_load": after["rss"] if after else None,
                "peak_rss_mib": after["peak"] if after else None,
                "database_memories": await count_memories(ctx.db),
                "database_bytes": await database_bytes(ctx.db),
            },
        }
    )
    return result
