"""The embedding backfill of a process without a scheduler (``jarvis-memory mcp``).

The stdio MCP server runs no scheduler (a desktop client may start several on one SQLite
file), so without this its own writes never got vectors, and a desktop client using it
alone never had semantic recall. :class:`BackfillLoop` runs the same job as the
scheduler's, one run at a time in the process's event loop, on the same triggers: once at
start, ``embedding_backfill_delay`` seconds after a write leaves memories without vectors
(the ``Embeddings.on_unembedded`` nudge), and every ``embedding_backfill_interval``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from services.core.clock import Clock
from services.core.db import Database
from services.core.settings import Settings
from services.embeddings.jobs import run_embedding_backfill
from services.embeddings.service import Embeddings

log = logging.getLogger(__name__)


class BackfillLoop:
    """The embedding backfill as a task of the running event loop."""

    def __init__(
        self, db: Database, settings: Settings, clock: Clock, embeddings: Embeddings
    ) -> None:
        self.db = db
        self.settings = settings
        self.clock = clock
        self.embeddings = embeddings
        self.runs = 0  # finished runs, whatever their status
        self._wanted = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        """Run once now, then on every nudge and every interval, until :meth:`close`."""
        self.embeddings.on_unembedded = self.nudge
        self._wanted.set()
        self._task = asyncio.get_running_loop().create_task(self._loop(), name="backfill")

    def nudge(self) -> None:
        """A write left memories without vectors: run soon (a burst of writes, once).

        Called in the write's unit of work, before its commit: the run waits
        ``embedding_backfill_delay`` seconds first, as the scheduler's nudge does."""
        self._wanted.set()

    async def close(self) -> None:
        """Stop the loop (a run under way is cancelled; the next start goes on)."""
        if self._task is None:
            return
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self._task = None

    async def _loop(self) -> None:
        first = True
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    self._wanted.wait(), self.settings.embedding_backfill_interval
                )
            if not first:
                await asyncio.sleep(self.settings.embedding_backfill_delay)
            first = False
            self._wanted.clear()
            try:
                await run_embedding_backfill(
                    self.db, self.settings, self.clock, self.embeddings, trigger="schedule"
                )
            except Exception:  # a database gone for a moment: the next trigger retries
                log.exception("embedding backfill failed")
            self.runs += 1
