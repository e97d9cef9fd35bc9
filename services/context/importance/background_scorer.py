"""Scoring in the background (seed 000 ``async_score_and_compress``: "主流程继续执行，评分在
后台进行，下次压缩时使用缓存的评分").

A request that asks for it (``background``, or ``MESSAGE_SCORE_BACKGROUND``) is answered
with the rule scores and the LLM answers already known; the uncertain messages the LLM has
not answered are marked ``pending`` and handed to this worker as one job. The worker asks
the LLM after the answer has gone out, puts the answers in the scorer's cache, and, for a
conversation with an id, writes them into the scores the request persisted, in a short unit
of work of its own. The next score or compression of the conversation (in this process
from the cache, in any other from the database) then uses them.

- It never holds the request's unit of work or a lock. A job is queued when the
  request's unit of work commits (:func:`submit_after_commit`; a request that fails
  queues nothing), so the rule scores it persisted are there to refine; the LLM call
  happens outside any transaction, and the write after it is one UPDATE that changes a
  score only while its message and task are unchanged
  (:meth:`MessageScoreRepository.refine`).
- It is bounded: at most ``MESSAGE_SCORE_QUEUE_SIZE`` jobs wait; a job beyond that is
  dropped and logged (its messages keep their rule scores and are asked again next time).
- One worker per process, started and stopped by the app's lifespan; stopping drops
  (and logs) what has not run, since what it would add is an improvement, not a promise.
- :meth:`BackgroundScorer.drain` waits until every job taken has finished: tests and the
  CLI synchronise on it instead of sleeping.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession

from services.context.importance.message_scorer import MessageImportanceScorer, ScoringTask
from services.context.shared.messages import ChatMessage
from services.core.clock import Clock
from services.core.db import Database
from services.repositories.message_scores import MessageScoreRepository

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScoringJob:
    """Messages whose uncertain ones (``pending``) the LLM is to score, and where the
    answers go (the conversation's persisted scores, when it has an id)."""

    messages: tuple[ChatMessage, ...]
    task: ScoringTask
    pending: tuple[int, ...]
    conversation_id: str | None = None
    user_id: str | None = None  # the conversation's owner; set with conversation_id


class BackgroundScorer:
    """A bounded queue and one worker; see the module docstring."""

    def __init__(
        self, scorer: MessageImportanceScorer, db: Database, clock: Clock, capacity: int
    ) -> None:
        self.scorer = scorer
        self.db = db
        self.clock = clock
        self._queue: asyncio.Queue[ScoringJob] = asyncio.Queue(maxsize=capacity)
        self._worker: asyncio.Task[None] | None = None
        self._busy = False
        self.dropped = 0

    def start(self) -> None:
        """Start the worker (in the running event loop)."""
        if self._worker is None:
            self._worker = asyncio.create_task(self._run(), name="background-scoring")

    @property
    def accepting(self) -> bool:
        """Whether a job would be queued now (the worker runs and the queue has room)."""
        return self._worker is not None and not self._worker.done() and not self._queue.full()

    def submit(self, job: ScoringJob) -> bool:
        """Queue a job; False (dropped and logged) when the queue is full or stopped."""
        if self._worker is None or self._worker.done():
            self.drop(job, "background scoring is not running")
            return False
        try:
            self._queue.put_nowait(job)
        except asyncio.QueueFull:
            self.drop(job, f"background scoring queue full ({self._queue.maxsize} jobs)")
            return False
        return True

    def drop(self, job: ScoringJob, why: str) -> None:
        """Count and log a job that will not run: its messages keep their rule scores."""
        self.dropped += 1
        log.warning("%s; %d messages keep their rule scores", why, len(job.pending))

    async def drain(self) -> None:
        """Wait until every queued job has been scored and written."""
        await self._queue.join()

    async def close(self) -> None:
        """Stop the worker; jobs not yet done are dropped and logged."""
        worker, self._worker = self._worker, None
        if worker is None:
            return
        unfinished = self._queue.qsize() + (1 if self._busy else 0)
        worker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await worker
        if unfinished:
            self.dropped += unfinished
            log.warning("background scoring stopped with %d jobs not done", unfinished)

    async def _run(self) -> None:
        while True:
            job = await self._queue.get()
            self._busy = True
            try:
                await self._score(job)
            except Exception:  # one job's failure must not stop the worker
                log.exception("background scoring of %d messages failed", len(job.pending))
            finally:
                self._busy = False
                self._queue.task_done()

    async def _score(self, job: ScoringJob) -> None:
        scores = await self.scorer.score(job.messages, job.task)
        if job.conversation_id is None or job.user_id is None:
            return  # the answers are in the scorer's cache
        now = self.clock()
        asked = set(job.pending)
        rows: Sequence[dict[str, object]] = [
            {
                "message_index": s.index,
                "content_hash": s.content_hash,
                "task_hash": job.task.key,
                "total": s.total,
                "method": s.method,
                "reason": s.reason,
                "llm_score": s.llm_score,
                "scored_at": now,
            }
            for s in scores
            if s.index in asked and s.llm_score is not None
        ]
        if rows:
            async with self.db.unit_of_work() as session:
                await MessageScoreRepository(session).refine(job.user_id, job.conversation_id, rows)


def submit_after_commit(
    session: AsyncSession, background: BackgroundScorer, job: ScoringJob
) -> None:
    """Queue ``job`` once ``session``'s unit of work has committed (never if it rolls back)."""

    def queue(_session: object) -> None:
        background.submit(job)

    event.listen(session.sync_session, "after_commit", queue, once=True)
