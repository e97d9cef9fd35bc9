"""Time limits in tests, scaled by one setting that CI raises on a loaded machine.

No test waits on wall-clock speed to decide what happened (no sleep as synchronisation):
a limit here only stops a test that would otherwise hang, or bounds a latency that a
loaded machine may stretch. ``JARVIS_TEST_TIME_SCALE`` multiplies every such limit
(default 1; ``.ci/run`` sets 4, for a CI run beside other CPU-heavy work on 2 cores).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable
from types import TracebackType

from asgi_lifespan import LifespanManager
from starlette.types import ASGIApp

TIME_SCALE = float(os.environ.get("JARVIS_TEST_TIME_SCALE", "1"))


def scaled(seconds: float) -> float:
    """``seconds`` times ``JARVIS_TEST_TIME_SCALE``."""
    return seconds * TIME_SCALE


class LoopStallMonitor:
    """The event loop's longest stall, in CPU seconds of the loop's own thread.

    A task ticks every millisecond and reads ``time.thread_time()``: the CPU time the
    loop's thread spent between two ticks is what ran on the loop without yielding (a
    callback, a coroutine step). Unlike wall-clock gaps it does not grow when the
    machine is busy with other processes or when a worker thread holds the GIL (a thread
    waiting for the GIL or for a core spends no CPU), so it tells work done *on* the loop
    from work done beside it, on any machine. ``wall`` keeps the longest wall-clock gap,
    for the message only.
    """

    def __init__(self) -> None:
        self.cpu = 0.0
        self.wall = 0.0
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    async def _tick(self) -> None:
        cpu, wall = time.thread_time(), time.perf_counter()
        while not self._stop.is_set():
            await asyncio.sleep(0.001)
            now_cpu, now_wall = time.thread_time(), time.perf_counter()
            self.cpu = max(self.cpu, now_cpu - cpu)
            self.wall = max(self.wall, now_wall - wall)
            cpu, wall = now_cpu, now_wall

    async def __aenter__(self) -> LoopStallMonitor:
        self._task = asyncio.create_task(self._tick())
        await asyncio.sleep(0)
        return self

    async def __aexit__(
        self,
        _type: type[BaseException] | None,
        _value: BaseException | None,
        _tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        assert self._task is not None
        await self._task


def lifespan(app: ASGIApp) -> LifespanManager:
    """``LifespanManager`` with start and stop limits that only stop a hang: its default
    5 s was once too short for an app to warm jieba on a loaded machine."""
    return LifespanManager(app, startup_timeout=scaled(60), shutdown_timeout=scaled(60))


async def until(condition: Callable[[], Awaitable[bool]], what: str, seconds: float = 30) -> None:
    """Poll ``condition`` until it holds (every 10 ms), failing after ``scaled(seconds)``:
    a test waits for the state it needs instead of sleeping a guess of how long it takes."""
    deadline = time.perf_counter() + scaled(seconds)
    while not await condition():
        if time.perf_counter() > deadline:
            raise AssertionError(f"timed out waiting until {what}")
        await asyncio.sleep(0.01)
