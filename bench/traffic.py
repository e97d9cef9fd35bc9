"""A bounded, closed-loop HTTP load: N clients, each one request at a time, for T seconds.

Every client is its own ``httpx.AsyncClient`` with one keep-alive connection (as N
separate callers would be), new for each window, and draws its requests from its own
iterator. Each client first sends one untimed request (it opens the connection); then
all clients start together and send back to back until the deadline. A request started
before the deadline is finished and counted, so the window's length is the time to the
last response, and the rate is completed requests / that length. A response ≥ 400 or a
transport error (timeouts included) is an error: counted per kind, its latency left out.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from bench.cpu import CpuSampler

REQUEST_TIMEOUT_SECONDS = 60.0
ERROR_SAMPLES = 5


@dataclass(frozen=True)
class Request:
    """One request of a kind (``recall``, ``add``, ``healthz``)."""

    kind: str
    method: str
    path: str
    body: dict[str, Any] | None = None


RequestSource = Callable[[int], Iterator[Request]]
"""Client number → that client's endless requests."""


@dataclass
class Window:
    """What one load window measured."""

    seconds: float = 0.0
    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: Counter[str] = field(default_factory=Counter)
    error_samples: list[str] = field(default_factory=list)
    cpu_seconds: dict[str, float] = field(default_factory=dict)  # per party (bench/cpu.py)

    def completed(self, kind: str | None = None) -> int:
        """Successful requests, of one kind or of all."""
        if kind is not None:
            return len(self.latencies.get(kind, []))
        return sum(len(v) for v in self.latencies.values())

    def record(self, kind: str, seconds: float) -> None:
        """One successful request."""
        self.latencies.setdefault(kind, []).append(seconds)

    def record_error(self, kind: str, what: str) -> None:
        """One failed request; the first few are kept verbatim for the report."""
        self.errors[kind] += 1
        if len(self.error_samples) < ERROR_SAMPLES:
            self.error_samples.append(f"{kind}: {what}")


async def _send(client: httpx.AsyncClient, request: Request, window: Window) -> None:
    """Send one request; record its latency, or its error, into ``window``."""
    start = time.perf_counter()
    try:
        response = await client.request(request.method, request.path, json=request.body)
    except httpx.HTTPError as exc:
        window.record_error(request.kind, f"{type(exc).__name__}: {exc}")
        return
    if response.status_code >= 400:
        window.record_error(request.kind, f"HTTP {response.status_code} {response.text[:200]}")
    else:
        window.record(request.kind, time.perf_counter() - start)


async def _drive(
    client: httpx.AsyncClient, requests: Iterator[Request], deadline: float, window: Window
) -> None:
    while time.perf_counter() < deadline:
        await _send(client, next(requests), window)


@asynccontextmanager
async def load_clients(base_url: str, clients: int) -> AsyncIterator[list[httpx.AsyncClient]]:
    """``clients`` HTTP clients of one connection each, for one window.

    A window's clients are its own: between windows a client that finished early sits
    idle while the slowest requests end (seconds under the mix), longer than uvicorn
    keeps an idle connection open (5 s), and a client reusing a connection the server is
    closing at that moment gets a ``ReadError`` that says nothing about the service.
    They share one SSL context, since building one per client costs more than a
    loopback request.
    """
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    ssl_context = ssl.create_default_context()
    async with AsyncExitStack() as stack:
        yield [
            await stack.enter_async_context(
                httpx.AsyncClient(
                    base_url=base_url,
                    trust_env=False,  # never through a proxy: this is loopback
                    timeout=REQUEST_TIMEOUT_SECONDS,
                    limits=limits,
                    verify=ssl_context,
                )
            )
            for _ in range(clients)
        ]


async def run_window(
    clients: list[httpx.AsyncClient],
    seconds: float,
    source: RequestSource,
    cpu: CpuSampler | None = None,
) -> Window:
    """Every client in a closed loop for ``seconds``, drawing from ``source``; with
    ``cpu``, the CPU time each party spent over the same requests."""
    window = Window()
    pairs = [(c, source(i)) for i, c in enumerate(clients)]
    # One request each (re)opens every connection; its errors count, its latency does not.
    await asyncio.gather(*(_send(c, next(s), window) for c, s in pairs))
    window.latencies.clear()
    before = cpu.snapshot() if cpu is not None else None
    start = time.perf_counter()
    deadline = start + seconds
    await asyncio.gather(*(_drive(c, s, deadline, window) for c, s in pairs))
    window.seconds = time.perf_counter() - start
    if cpu is not None and before is not None and (after := cpu.snapshot()) is not None:
        window.cpu_seconds = cpu.spent(before, after)
    return window
