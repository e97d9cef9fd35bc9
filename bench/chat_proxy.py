"""The chat proxy's cost before the model hears of a request, beside a direct call.

One real server (bench/server.py, as the HTTP load starts it) with ``LLM_BASE_URL`` at a
loopback model server (bench/proxy_upstream.py) and ``MESSAGE_SCORE_BACKGROUND=true``
(docs/chat-proxy.md's advice for the first token). Streamed chat completions for the
tenant of 10,000 memories (the largest up to that) go through ``POST
/v1/chat/completions``, each a short conversation ending in a new question, and the same
body goes straight to the model server, interleaved, one request at a time.

Per proxied request: the server process's CPU time (every thread's, from
``/proc/<pid>/task/*/schedstat`` in nanoseconds) from just before the request is sent
until the model server receives it, read by the model server on arrival; before each
request the server is left until its CPU time stops moving, so the previous request's
tail (its turn stored, its connection closed) is not counted. Per request of both kinds:
the time to the first byte of the answer's body. Whether the stream was relayed as it
came: the model server holds the rest of each answer until the client has its first
event, so a relay that gathered the stream is caught by an event, not by a clock.
The same body also goes through the proxy with ``X-Jarvis-Memory: off`` (a pure
pass-through), whose CPU before the model is the HTTP share of the proxy's cost.
The target is a CPU p50 under ``TARGET_CPU_MS`` and no buffered stream.

It stores one turn per proxied request, so it runs after the steps that read the data
as loaded.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any, Final

import httpx
from sqlalchemy import func, select

from bench.cpu import process_cpu_ns
from bench.data import Generator
from bench.measure import LatencySeries, ratio
from bench.proxy_upstream import INTERNAL_MODEL, BenchUpstream
from bench.scenarios import Context
from bench.server import running_server
from models import UserMemory

TARGET_CPU_MS: Final = 15.0
HISTORY_TURNS: Final = 6
SETTLE_NS: Final = 200_000  # the server counts as idle below 0.2 ms of CPU in 20 ms
SETTLE_ROUNDS: Final = 100
MEMORY_OFF: Final = {"X-Jarvis-Memory": "off"}


async def _memories(ctx: Context, user: str) -> int:
    async with ctx.db.reader() as session:
        count = await session.scalar(
            select(func.count()).select_from(UserMemory).where(UserMemory.user_id == user)
        )
    return int(count or 0)


async def _settle(pid: int) -> int:
    """Wait until the server's CPU time stops moving (at most two seconds); the reading
    then."""
    before = process_cpu_ns(pid) or 0
    for _ in range(SETTLE_ROUNDS):
        await asyncio.sleep(0.02)
        now = process_cpu_ns(pid) or 0
        if now - before < SETTLE_NS:
            return now
        before = now
    return before


def _body(gen: Generator, user: str) -> dict[str, Any]:
    messages = [{"role": "system", "content": "You are Jarvis, a personal assistant."}]
    for turn in range(HISTORY_TURNS):
        messages.append(
            {"role": "user" if turn % 2 == 0 else "assistant", "content": gen.text()[0]}
        )
    messages.append({"role": "user", "content": gen.query()})
    return {"model": "bench-model", "stream": True, "messages": messages, "user": user}


async def _first_byte(
    http: httpx.AsyncClient,
    url: str,
    body: dict[str, Any],
    upstream: BenchUpstream,
    headers: dict[str, str] | None = None,
) -> tuple[float, int | None]:
    """Seconds to the first byte of a streamed answer, and the watched process's CPU
    time then; the stream is read to its end."""
    upstream.first_seen.clear()
    start = time.perf_counter()
    first, cpu_ns = 0.0, None
    async with http.stream("POST", url, json=body, headers=headers) as response:
        response.raise_for_status()
        async for chunk in response.aiter_raw():
            if chunk and not first:
                first = time.perf_counter() - start
                if upstream.watched_pid is not None:
                    cpu_ns = process_cpu_ns(upstream.watched_pid)
                upstream.first_seen.set()
    return first, cpu_ns


async def chat_proxy(
    ctx: Context, database_url: str, user: str, requests: int, log_path: Path
) -> dict[str, Any]:
    """CPU before the model and time to first byte, proxied, beside direct."""
    memories = await _memories(ctx, user)
    upstream = BenchUpstream().start()
    settings = {
        "LLM_BASE_URL": upstream.base_url,
        "LLM_MODEL": INTERNAL_MODEL,
        "MESSAGE_SCORE_BACKGROUND": "true",
    }
    names = ("cpu", "cpu_first_byte", "wall", "proxied", "cpu_passthrough", "direct")
    series = {name: LatencySeries() for name in names}
    gen = Generator(ctx.seed + 41)
    try:
        async with (
            running_server(database_url, ctx.clock.now, log_path, settings=settings) as server,
            httpx.AsyncClient(trust_env=False, timeout=60.0) as http,
        ):
            upstream.watched_pid = server.pid
            proxied_url = f"{server.base_url}/v1/chat/completions"
            direct_url = f"{upstream.base_url}/chat/completions"

            async def proxied(body: dict[str, Any]) -> dict[str, float]:
                before = await _settle(server.pid)
                seen = len(upstream.arrivals)
                start = time.perf_counter()
                first, cpu_at_first = await _first_byte(http, proxied_url, body, upstream)
                arrival = upstream.arrivals[seen]
                out = {"wall": arrival.at - start, "proxied": first}
                if arrival.service_cpu_ns is not None:  # None: no /proc, no figure
                    out["cpu"] = (arrival.service_cpu_ns - before) / 1e9
                if cpu_at_first is not None:
                    out["cpu_first_byte"] = (cpu_at_first - before) / 1e9
                return out

            async def passthrough(body: dict[str, Any]) -> dict[str, float]:
                """The proxy without memory (``X-Jarvis-Memory: off``): its HTTP share."""
                before = await _settle(server.pid)
                seen = len(upstream.arrivals)
                await _first_byte(http, proxied_url, body, upstream, MEMORY_OFF)
                arrived = upstream.arrivals[seen].service_cpu_ns
                return {} if arrived is None else {"cpu_passthrough": (arrived - before) / 1e9}

            async def direct(body: dict[str, Any]) -> dict[str, float]:
                return {"direct": (await _first_byte(http, direct_url, body, upstream))[0]}

            for _ in range(2):  # warm, untimed: the pools, the caches, jieba's first words
                for action in (proxied, passthrough, direct):
                    await action(_body(gen, user))
            for _ in range(ctx.reps):
                for each in series.values():
                    each.new_rep()
                for i in range(requests):
                    body = _body(gen, user)
                    order = [proxied, passthrough, direct]
                    for action in order[i % 3 :] + order[: i % 3]:
                        for name, seconds in (await action(body)).items():
                            series[name].add(seconds)
    finally:
        upstream.stop()
    return _summary(user, memories, requests, series, upstream)


def _summary(
    user: str,
    memories: int,
    requests: int,
    series: dict[str, LatencySeries],
    upstream: BenchUpstream,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "user_id": user,
        "memories": memories,
        "requests_per_repetition": requests,
        "history_turns": HISTORY_TURNS,
        "target_cpu_ms": TARGET_CPU_MS,
        "cpu_before_upstream": series["cpu"].summary_ms(),
        "cpu_to_first_byte": series["cpu_first_byte"].summary_ms(),
        "cpu_passthrough": series["cpu_passthrough"].summary_ms(),
        "wall_before_upstream": series["wall"].summary_ms(),
        "ttfb_proxied": series["proxied"].summary_ms(),
        "ttfb_direct": series["direct"].summary_ms(),
        "buffered_streams": upstream.buffered,
        "internal_llm_calls": upstream.internal,
    }
    out["ttfb_ratio_p50"] = ratio(out["ttfb_proxied"]["p50"], out["ttfb_direct"]["p50"])
    out["meets_target"] = (
        out["cpu_before_upstream"]["p50"] < TARGET_CPU_MS and upstream.buffered == 0
    )
    return out
