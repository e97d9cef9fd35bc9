"""Proof that a PostgreSQL transaction is waiting for a lock, read from the server.

A test that sleeps and then asserts ``not task.done()`` passes just as well when the task
has not yet reached its lock at all (a loaded machine, a slow first statement): what it
then probes proves nothing. PostgreSQL itself says who waits for whom:
``pg_blocking_pids(pid)`` lists the backends holding the locks ``pid`` waits for.
"""

from __future__ import annotations

import asyncio
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

# Generous: the machine is shared; a wait that shows up at all shows up in milliseconds.
DEADLINE_SECONDS = 60.0
POLL_SECONDS = 0.02

_WAITERS = text(
    "SELECT pid FROM pg_stat_activity "
    "WHERE CAST(:holder AS integer) = ANY(pg_blocking_pids(pid)) AND wait_event_type = 'Lock'"
)


async def backend_pid(connection: AsyncConnection) -> int:
    """The server process behind ``connection``."""
    return int((await connection.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def blocked_by(engine: AsyncEngine, holder: int, task: asyncio.Task[Any]) -> int:
    """Wait until some backend waits for a lock ``holder`` holds; its pid.

    Fails at once if ``task`` (the code expected to wait) finished instead, and after
    ``DEADLINE_SECONDS`` if nothing ever waited.
    """
    deadline = asyncio.get_running_loop().time() + DEADLINE_SECONDS
    async with engine.connect() as watcher:
        while True:
            waiting = (await watcher.execute(_WAITERS, {"holder": holder})).scalars().all()
            await watcher.rollback()  # a fresh snapshot of pg_stat_activity per poll
            if waiting:
                return int(waiting[0])
            if task.done():
                task.result()  # re-raises the task's error, if that is why it ended
                raise AssertionError("the task finished without waiting for the lock")
            if asyncio.get_running_loop().time() > deadline:
                raise AssertionError(f"nothing waited for backend {holder} within the deadline")
            await asyncio.sleep(POLL_SECONDS)  # polling the server, not timing the task
