"""One person's recall while another floods the embedding engine and a third's long
notes are embedded.

A fresh database of the run's backend (nothing else in it waits for a vector) and one
real server (bench/server.py) with ``EMBEDDING_PROVIDER=local`` (the bundled model) and
its scheduler on, so the embedding backfill runs as ``jarvis-memory serve`` runs it.
Three people:

- the *reader*, whose store of ``store`` short statements (bench/data.py) is written and
  embedded before anything is measured;
- the *flooder*, a few embedded statements of its own, whose client sends recalls with
  ``LONG_CHARS``-character queries on ``clients`` connections, back to back;
- the *writer*, whose ``notes`` notes of ``LONG_CHARS`` characters are written in one
  batch, which the backfill then embeds.

Phase A: the reader's ``recalls`` recalls (short queries, top ``TOP_K``, untracked), one
at a time, alone. Phase B: the flood starts, the writer's notes are written, then the
reader's ``new`` new memories; once the backfill has started on them, the reader's same
recalls, one at a time; then the step waits (at most ``vector_wait`` seconds) until the
reader's new memories have vectors (read from the database, beside the server), and the
flood stops. The target: p50 under the flood within ``TARGET_RATIO`` of p50 alone, the
new memories embedded, and the flooder answered 200 or 429, never 5xx or a time-out.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import datetime
from pathlib import Path
from typing import Any, Final

import httpx
from sqlalchemy import func, select

from bench.data import Generator
from bench.db import fresh_database
from bench.measure import LatencySeries, ratio
from bench.scenarios import TOP_K
from bench.server import running_server
from bench.server_main import SCHEDULER_VARIABLE
from models import MemoryEmbedding
from services.core.db import Database, build_engine

TARGET_RATIO: Final = 2.0
LONG_CHARS: Final = 8000  # the longest content or query the API takes
FLOOD_TIMEOUT_SECONDS: Final = 30.0  # a flooder's request unanswered by then is a time-out
READY_SECONDS: Final = 300.0  # the model loading, the reader's store embedded
FLOODER_MEMORIES: Final = 20
POLL_SECONDS: Final = 0.1
READER, FLOODER, WRITER = "flood-reader", "flood-flooder", "flood-writer"
SEED_OFFSET: Final = 43_000


def long_text(gen: Generator, chars: int = LONG_CHARS) -> str:
    """Statements joined until ``chars`` characters, cut there."""
    parts: list[str] = []
    while sum(len(p) + 1 for p in parts) < chars:
        parts.append(gen.text()[0])
    return " ".join(parts)[:chars]


def _items(texts: list[tuple[str, str]]) -> dict[str, Any]:
    return {"items": [{"content": c, "memory_type": t} for c, t in texts]}


async def _write(http: httpx.AsyncClient, user: str, texts: list[tuple[str, str]]) -> list[int]:
    """One batch; the stored memories' ids (none for no texts: the API wants one)."""
    if not texts:
        return []
    response = await http.post(f"/v1/users/{user}/memories/batch", json=_items(texts))
    response.raise_for_status()
    return [int(item["id"]) for item in response.json()["items"]]


async def _embedding(http: httpx.AsyncClient) -> dict[str, Any]:
    """The ``embedding`` block of ``GET /admin/stats`` (pending vectors, the last run)."""
    response = await http.get("/admin/stats")
    response.raise_for_status()
    body = response.json()
    return {**body["embedding"], "last_run": body.get("last_embedding")}


async def _until(check: Callable[[], Awaitable[bool]], seconds: float, what: str) -> None:
    deadline = time.perf_counter() + seconds
    while not await check():
        if time.perf_counter() > deadline:
            raise RuntimeError(f"flood bench: {what} not within {seconds:.0f}s")
        await asyncio.sleep(POLL_SECONDS)


async def _wait_model(http: httpx.AsyncClient) -> None:
    async def ready() -> bool:
        embedding = (await http.get("/readyz")).json().get("embedding")
        if embedding == "unavailable":
            raise RuntimeError("flood bench: the bundled embedding model could not be loaded")
        return bool(embedding == "ready")

    await _until(ready, READY_SECONDS, "the embedding model loaded")


async def _embedded(db: Database, user: str, ids: list[int]) -> int:
    """How many of ``ids`` have a vector."""
    async with db.reader() as session:
        count = await session.scalar(
            select(func.count())
            .select_from(MemoryEmbedding)
            .where(MemoryEmbedding.user_id == user, MemoryEmbedding.memory_id.in_(ids))
        )
    return int(count or 0)


async def _recalls(
    http: httpx.AsyncClient, queries: list[str], series: LatencySeries, errors: Counter[str]
) -> None:
    """The reader's recalls, one at a time; each one's latency, or its error."""
    series.new_rep()
    for query in queries:
        start = time.perf_counter()
        body = {"query": query, "top_k": TOP_K, "track": False}
        try:
            response = await http.post(f"/v1/users/{READER}/recall", json=body)
        except httpx.HTTPError as exc:
            errors[type(exc).__name__] += 1
            continue
        if response.status_code == 200:
            series.add(time.perf_counter() - start)
        else:
            errors[str(response.status_code)] += 1


async def _flood(base_url: str, client: int, seed: int, stop: asyncio.Event) -> Counter[str]:
    """One flooding connection: long queries back to back until ``stop``; answers by
    status (``timeout`` and ``transport`` for requests with none)."""
    gen = Generator(seed + client)
    statuses: Counter[str] = Counter()
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    async with httpx.AsyncClient(
        base_url=base_url, trust_env=False, timeout=FLOOD_TIMEOUT_SECONDS, limits=limits
    ) as http:
        while not stop.is_set():
            body = {"query": long_text(gen), "top_k": TOP_K, "track": False}
            try:
                response = await http.post(f"/v1/users/{FLOODER}/recall", json=body)
            except httpx.TimeoutException:
                statuses["timeout"] += 1
                continue
            except httpx.TransportError:
                statuses["transport"] += 1
                continue
            statuses[str(response.status_code)] += 1
            if response.status_code == 429:
                # A well-behaved client would wait Retry-After; this one does not.
                await asyncio.sleep(0)
    return statuses


def _statuses(counts: Counter[str]) -> dict[str, int]:
    """The flooder's answers in the report's classes."""
    five = sum(n for s, n in counts.items() if s.isdigit() and s.startswith("5"))
    known = {"200", "429", "timeout"}
    other = sum(n for s, n in counts.items() if s not in known and not s.startswith("5"))
    return {
        "ok_200": counts["200"],
        "busy_429": counts["429"],
        "server_error_5xx": five,
        "timeout": counts["timeout"],
        "other": other,
        "requests": sum(counts.values()),
    }


async def flood(
    backend: str,
    tmp_dir: Path,
    pg_server: str | None,
    now: datetime,
    seed: int,
    *,
    store: int,
    recalls: int,
    notes: int,
    new: int,
    clients: int,
    vector_wait: float,
) -> dict[str, Any]:
    """Phase A alone, phase B under the flood and the notes' backfill; the figures."""
    gen = Generator(seed + SEED_OFFSET)
    store_texts = [gen.text() for _ in range(store)]
    flooder_texts = [gen.text() for _ in range(FLOODER_MEMORIES)]
    queries = [gen.query() for _ in range(recalls)]
    note_texts = [(long_text(gen), "other") for _ in range(notes)]
    new_texts = [gen.text() for _ in range(new)]
    alone, under = LatencySeries(), LatencySeries()
    errors_alone: Counter[str] = Counter()
    errors_under: Counter[str] = Counter()
    settings = {"EMBEDDING_PROVIDER": "local", SCHEDULER_VARIABLE: "true"}
    async with fresh_database(backend, tmp_dir, pg_server) as url:
        db = Database(build_engine(url, pool_size=1))
        log_path = tmp_dir / f"server-{backend}-flood.log"
        try:
            async with (
                running_server(url, now, log_path, settings=settings) as server,
                httpx.AsyncClient(base_url=server.base_url, trust_env=False, timeout=120.0) as http,
            ):
                await _wait_model(http)
                await _write(http, READER, store_texts)
                await _write(http, FLOODER, flooder_texts)

                async def none_pending() -> bool:
                    return bool((await _embedding(http))["pending"] == 0)

                await _until(none_pending, READY_SECONDS, "the stores embedded")
                await _recalls(http, queries[:1], LatencySeries(), Counter())  # warm, untimed
                await _recalls(http, queries, alone, errors_alone)

                stop = asyncio.Event()
                flooders = [
                    asyncio.create_task(_flood(server.base_url, i, seed + SEED_OFFSET, stop))
                    for i in range(clients)
                ]
                try:
                    started = time.perf_counter()
                    await _write(http, WRITER, note_texts)
                    notes_written = time.perf_counter() - started
                    new_ids = await _write(http, READER, new_texts)
                    written = time.perf_counter()

                    async def backfill_started() -> bool:
                        # A run under way, or none needed any more (a quick one ended).
                        embedding = await _embedding(http)
                        run = embedding["last_run"]
                        running = bool(run and run["status"] == "running")
                        return running or embedding["pending"] == 0

                    # The backfill starts EMBEDDING_BACKFILL_DELAY after the writes; the
                    # recalls are measured while it embeds.
                    await _until(backfill_started, 60.0, "a backfill run")
                    pending_before = (await _embedding(http))["pending"]
                    await _recalls(http, queries, under, errors_under)
                    pending_after = (await _embedding(http))["pending"]
                    deadline = written + vector_wait
                    embedded = await _embedded(db, READER, new_ids)
                    while embedded < len(new_ids) and time.perf_counter() < deadline:
                        await asyncio.sleep(POLL_SECONDS)
                        embedded = await _embedded(db, READER, new_ids)
                    vectors_seconds = (
                        time.perf_counter() - written if embedded == len(new_ids) else None
                    )
                    flood_seconds = time.perf_counter() - started
                finally:
                    stop.set()
                    counts: Counter[str] = Counter()
                    for each in await asyncio.gather(*flooders):
                        counts.update(each)
                pending_end = (await _embedding(http))["pending"]
        finally:
            await db.dispose()
    a, u = alone.summary_ms(), under.summary_ms()
    flooder = _statuses(counts)
    return {
        "store": store,
        "recalls": recalls,
        "notes": notes,
        "note_chars": LONG_CHARS,
        "new_memories": new,
        "flood_clients": clients,
        "alone": a,
        "under_flood": u,
        "errors_alone": dict(errors_alone),
        "errors_under_flood": dict(errors_under),
        "ratio_p50": ratio(u["p50"], a["p50"]),
        "target_ratio": TARGET_RATIO,
        "flooder": flooder,
        "flood_seconds": flood_seconds,
        "notes_write_seconds": notes_written,
        "pending_when_recalls_began": pending_before,
        "pending_when_recalls_ended": pending_after,
        "pending_at_end": pending_end,
        "new_with_vectors": embedded,
        "new_vectors_seconds": vectors_seconds,
        "vector_wait_seconds": vector_wait,
        "meets_target": (
            0 < u["p50"] <= TARGET_RATIO * a["p50"]
            and embedded == new
            and flooder["server_error_5xx"] == 0
            and flooder["timeout"] == 0
        ),
    }
