"""MessageScoringService: score and compress a conversation, persisting both per conversation.

Every call names the user the conversation belongs to: a ``conversation_id`` names a
conversation within that user's data only, so two callers using the same id never read
or overwrite each other's scores or history.

Without a ``conversation_id`` nothing is stored. With one, every message's score is saved
(seed 000 "评分结果持久化") and earlier LLM answers for unchanged messages under the same task
are reused (method ``cache``), so only new messages reach the LLM; each compression is
recorded as history.

``background`` (seed 000 ``async_score_and_compress``): the answer has the rule scores and
the LLM answers already known; the rest is marked ``pending`` and asked by the
:class:`~services.context.importance.background_scorer.BackgroundScorer` once this request has
committed, for the next request to use.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial

from sqlalchemy.ext.asyncio import AsyncSession

from models import CompressionRecord, MessageScoreRecord
from services.context.importance.background_scorer import (
    BackgroundScorer,
    ScoringJob,
    submit_after_commit,
)
from services.context.importance.compress import CompressionResult, smart_compress
from services.context.importance.llm_answer_cache import LlmAnswer
from services.context.importance.message_score import MessageScore
from services.context.importance.message_scorer import MessageImportanceScorer, ScoringTask
from services.context.importance.phases import PhaseSwitch, PhaseSwitcher
from services.context.shared.llm_client import ChatCompletionsClient
from services.context.shared.messages import ChatMessage, validate_messages
from services.context.shared.tokens import TokenEstimator, get_token_estimator
from services.core.clock import Clock
from services.core.errors import InvalidInput
from services.core.settings import Settings
from services.core.validation import check_user_id
from services.repositories.message_scores import MessageScoreRepository


@dataclass(frozen=True)
class Conversation:
    """Messages to score, the task they serve and where to persist the result."""

    messages: Sequence[ChatMessage]
    task_context: str = ""
    task_type: str | None = None
    conversation_id: str | None = None
    background: bool | None = None  # None: MESSAGE_SCORE_BACKGROUND
    current_phase: str | None = None  # named in the LLM's prompt (seed 000)


@dataclass(frozen=True)
class Compressed:
    """A compression's outcome with the scores it was based on; ``messages`` are what is
    kept, in order: the original messages (``origin`` their index) and the summaries of
    earlier phases (``origin`` None)."""

    result: CompressionResult
    scores: list[MessageScore]
    preserve_recent: int
    messages: list[ChatMessage]
    origin: list[int | None]
    phases: list[PhaseSwitch]


class MessageScoringService:
    """Scores and compresses conversations for the routes, the CLI and the evaluation."""

    def __init__(
        self,
        session: AsyncSession,
        settings: Settings,
        scorer: MessageImportanceScorer,
        clock: Clock,
        background: BackgroundScorer | None = None,
        llm: ChatCompletionsClient | None = None,
    ) -> None:
        self.settings = settings
        self.scorer = scorer
        self.estimator = get_token_estimator(settings.token_estimator)
        self.phases = PhaseSwitcher(self.estimator, scorer.keywords, llm)
        self.clock = clock
        self.session = session
        self.background = background
        self.repo = MessageScoreRepository(session)

    def _task(self, user_id: str, conversation: Conversation) -> ScoringTask:
        check_user_id(user_id)
        validate_messages(conversation.messages)
        if conversation.conversation_id is not None:
            _check_conversation_id(conversation.conversation_id)
        try:
            return self.scorer.task(
                conversation.task_context, conversation.task_type, conversation.current_phase
            )
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc

    def _in_background(self, conversation: Conversation) -> BackgroundScorer | None:
        wanted = conversation.background
        if wanted is None:
            wanted = self.settings.message_score_background
        if not wanted or not self.scorer.has_llm:
            return None
        return self.background

    async def score(self, user_id: str, conversation: Conversation) -> list[MessageScore]:
        """A score per message; persisted under the user when the conversation has an id."""
        task = self._task(user_id, conversation)
        if conversation.conversation_id is not None:
            await self._reuse_llm_answers(user_id, conversation, task)
        background = self._in_background(conversation)
        scores = await self.scorer.score(conversation.messages, task, ask_llm=background is None)
        pending = tuple(s.index for s in scores if s.pending)
        if background is not None and pending:
            job = ScoringJob(
                tuple(conversation.messages),
                task,
                pending,
                conversation.conversation_id,
                user_id,
            )
            if background.accepting:
                submit_after_commit(self.session, background, job)
            else:  # bounded: an overloaded LLM is not asked inline instead
                background.drop(job, "background scoring queue full or stopped")
                scores = [replace(s, pending=False) for s in scores]
        if conversation.conversation_id is not None:
            await self._persist(user_id, conversation, task, scores)
        return scores

    async def compress(
        self,
        user_id: str,
        conversation: Conversation,
        *,
        target_count: int | None = None,
        budget_tokens: int | None = None,
        preserve_recent: int | None = None,
    ) -> Compressed:
        """smart_compress to a target count and/or token budget, recorded as history."""
        if target_count is None and budget_tokens is None:
            raise InvalidInput("give target_count or budget_tokens")
        if target_count is not None and target_count < 1:
            raise InvalidInput("target_count must be at least 1")
        if budget_tokens is not None and budget_tokens < 1:
            raise InvalidInput("budget_tokens must be at least 1")
        recent = (
            self.settings.compress_preserve_recent if preserve_recent is None else preserve_recent
        )
        if recent < 0:
            raise InvalidInput("preserve_recent must not be negative")
        scores = await self.score(user_id, conversation)
        messages = list(conversation.messages)
        condensed = None
        if any(m.phase for m in messages):
            condensed = await self.phases.condense(
                messages, scores, conversation.current_phase, self.settings.phase_keep_score
            )
        # smart_compress is CPU only (token counts of every message): in a worker thread,
        # so the event loop keeps serving other requests meanwhile.
        if condensed is None:
            result = await asyncio.to_thread(
                partial(
                    smart_compress,
                    messages,
                    scores,
                    target_count=target_count,
                    budget_tokens=budget_tokens,
                    preserve_recent=recent,
                    estimator=self.estimator,
                )
            )
            kept, origin = [messages[i] for i in result.kept], list[int | None](result.kept)
            switches: list[PhaseSwitch] = []
        else:
            inner = await asyncio.to_thread(
                partial(
                    smart_compress,
                    condensed.messages,
                    condensed.scores,
                    target_count=target_count,
                    budget_tokens=budget_tokens,
                    preserve_recent=recent,
                    estimator=self.estimator,
                    keep=condensed.summaries,
                )
            )
            kept = [condensed.messages[p] for p in inner.kept]
            origin = [condensed.origin[p] for p in inner.kept]
            result = _in_original_terms(inner, origin, messages, self.estimator)
            switches = condensed.switches
        if conversation.conversation_id is not None:
            await self.repo.add_compression(
                CompressionRecord(
                    user_id=user_id,
                    conversation_id=conversation.conversation_id,
                    created_at=self.clock(),
                    task_hash=self._task(user_id, conversation).key,
                    from_count=result.original_count,
                    to_count=len(result.kept),
                    from_tokens=result.original_tokens,
                    to_tokens=result.kept_tokens,
                    compression_rate=result.compression_rate,
                    target_count=target_count,
                    budget_tokens=budget_tokens,
                    preserve_recent=recent,
                    kept=result.kept,
                    dropped=result.dropped,
                )
            )
        return Compressed(result, scores, recent, kept, origin, switches)

    async def conversation_scores(
        self, user_id: str, conversation_id: str, *, limit: int, after_index: int = -1
    ) -> list[MessageScoreRecord]:
        """Persisted scores of a user's conversation in message order."""
        check_user_id(user_id)
        _check_conversation_id(conversation_id)
        return await self.repo.scores(
            user_id, conversation_id, limit=limit, after_index=after_index
        )

    async def compressions(
        self, user_id: str, conversation_id: str, *, limit: int, before_id: int | None = None
    ) -> list[CompressionRecord]:
        """A user's conversation's compression history, newest first."""
        check_user_id(user_id)
        _check_conversation_id(conversation_id)
        return await self.repo.compressions(
            user_id, conversation_id, limit=limit, before_id=before_id
        )

    async def _reuse_llm_answers(
        self, user_id: str, conversation: Conversation, task: ScoringTask
    ) -> None:
        assert conversation.conversation_id is not None
        stored = await self.repo.scores(user_id, conversation.conversation_id)
        messages = conversation.messages
        for row in stored:
            if row.llm_score is None or row.task_hash != task.key:
                continue
            if row.message_index >= len(messages):
                continue
            message = messages[row.message_index]
            if row.content_hash != self.scorer.content_hash(message.content):
                continue
            self.scorer.cache.put(
                self.scorer.message_key(message), task.key, LlmAnswer(row.llm_score, row.reason)
            )

    async def _persist(
        self,
        user_id: str,
        conversation: Conversation,
        task: ScoringTask,
        scores: list[MessageScore],
    ) -> None:
        now = self.clock()
        await self.repo.upsert(
            [
                {
                    "user_id": user_id,
                    "conversation_id": conversation.conversation_id,
                    "message_index": score.index,
                    "message_id": score.message_id,
                    "role": conversation.messages[score.index].role,
                    "content_hash": score.content_hash,
                    "task_hash": task.key,
                    "task_type": task.task_type,
                    "total": score.total,
                    "dimensions": dict(score.dimensions),
                    "confidence": score.confidence,
                    "method": score.method,
                    "reason": score.reason,
                    "llm_score": score.llm_score,
                    "scored_at": now,
                }
                for score in scores
            ]
        )


def _check_conversation_id(conversation_id: str) -> None:
    try:
        check_user_id(conversation_id)
    except InvalidInput as exc:
        raise InvalidInput("conversation_id must be 1-128 characters of [A-Za-z0-9_.:@-]") from exc


def _in_original_terms(
    inner: CompressionResult,
    origin: Sequence[int | None],
    messages: Sequence[ChatMessage],
    estimator: TokenEstimator,
) -> CompressionResult:
    """A compression of the condensed conversation, told by the original indexes."""
    kept = [i for i in origin if i is not None]
    kept_set = set(kept)
    return CompressionResult(
        kept=kept,
        dropped=[i for i in range(len(messages)) if i not in kept_set],
        original_tokens=sum(estimator.message(m) for m in messages),
        kept_tokens=inner.kept_tokens,
        compression_rate=round(len(origin) / len(messages), 4),
        target_exceeded_by=inner.target_exceeded_by,
    )
