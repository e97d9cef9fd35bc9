"""ContextService: assemble a user's context for the model (``POST /v1/users/{id}/context``).

Private memories first (seed 001 §1): the user's memories are recalled through
:meth:`RecallService.recall_memories` with the request's ``query``, by default the last
user message. The recall itself runs with ``track=False`` and only the memories that are
really injected are then counted as recalled (``CONTEXT_TRACK_RECALLS``): a memory the
budget left out was not used, and must not gain frequency from it.

Messages are scored by the message scorer of seed 000 (rules; the LLM for uncertain ones
when configured), the assembly itself is :class:`ContextAssembler`, and memory cards of a
new summary are saved through :class:`MemoryService` (repeats merge and raise frequency).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from sqlalchemy.ext.asyncio import AsyncSession

from services.context.assembly import (
    AssembledContext,
    AssemblyOptions,
    ContextAssembler,
    MemoryCandidate,
)
from services.context.budget import shares_from_settings
from services.context.cards import save_cards
from services.context.levels import LevelCompressor
from services.context.llm_client import ChatCompletionsClient
from services.context.message_scorer import MessageImportanceScorer
from services.context.messages import ChatMessage, validate_messages
from services.context.summary import sentence_score
from services.context.tokens import get_token_estimator
from services.core.clock import Clock
from services.core.errors import InvalidInput
from services.core.settings import Settings
from services.core.validation import check_user_id
from services.recall.recall_service import RecallService
from services.remembering.memory_service import MemoryService
from services.text.analysis import TextAnalyzer

# Recall reads at most this much of the query (a pasted file is not a question).
MAX_QUERY_CHARS: Final = 2000
MAX_BUDGET_TOKENS: Final = 10_000_000
CARD_SOURCE_DEFAULT: Final = "context"


@dataclass(frozen=True)
class ContextRequest:
    """What the frontend sends: the conversation so far and the budget."""

    messages: Sequence[ChatMessage]
    budget_tokens: int
    query: str | None = None
    task_context: str = ""
    task_type: str | None = None
    preserve_recent: int | None = None
    extract_cards: bool | None = None
    conversation_id: str | None = None


def last_user_message(messages: Sequence[ChatMessage]) -> str:
    """The content of the last user message ("" when there is none)."""
    for message in reversed(messages):
        if message.role == "user":
            return message.content
    return ""


class ContextService:
    """Per-request context assembly over one session."""

    def __init__(
        self,
        session: AsyncSession,
        settings: Settings,
        analyzer: TextAnalyzer,
        scorer: MessageImportanceScorer,
        clock: Clock,
        llm: ChatCompletionsClient | None = None,
        *,
        recall: RecallService | None = None,
        memories: MemoryService | None = None,
    ) -> None:
        self.settings = settings
        self.analyzer = analyzer
        self.scorer = scorer
        # The edge passes services wired with the optional providers (embeddings, reranker).
        self.recall = recall or RecallService(session, settings, analyzer, clock)
        self.memories = memories or MemoryService(session, settings, analyzer, clock)
        estimator = get_token_estimator(settings.token_estimator)
        self.assembler = ContextAssembler(
            estimator,
            LevelCompressor(estimator.count, sentence_score, scorer.keywords),
            scorer.keywords,
            llm,
        )

    def _options(self, request: ContextRequest) -> AssemblyOptions:
        s = self.settings
        recent = (
            s.context_preserve_recent
            if request.preserve_recent is None
            else (request.preserve_recent)
        )
        if recent < 0:
            raise InvalidInput("preserve_recent must not be negative")
        return AssemblyOptions(
            shares=shares_from_settings(s),
            preserve_recent=recent,
            preserve_importance=s.context_preserve_importance,
            summary_threshold=s.context_summary_threshold,
            summary_max_tokens=s.context_summary_max_tokens,
        )

    async def assemble(self, user_id: str, request: ContextRequest) -> AssembledContext:
        """The context to send; see :mod:`services.context.assembly`."""
        check_user_id(user_id)
        validate_messages(request.messages)
        if not 1 <= request.budget_tokens <= MAX_BUDGET_TOKENS:
            raise InvalidInput(f"budget_tokens must be between 1 and {MAX_BUDGET_TOKENS}")
        if request.conversation_id is not None:
            try:
                check_user_id(request.conversation_id)
            except InvalidInput as exc:
                raise InvalidInput(
                    "conversation_id must be 1-128 characters of [A-Za-z0-9_.:@-]"
                ) from exc
        options = self._options(request)
        try:
            task = self.scorer.task(request.task_context, request.task_type)
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc
        query = request.query if request.query is not None else last_user_message(request.messages)
        query = query[:MAX_QUERY_CHARS]
        hits = await self.recall.recall_memories(
            user_id, query, self.settings.context_memory_top_k, track=False
        )
        candidates = [
            MemoryCandidate(
                id=h.memory.id,
                content=h.memory.content,
                memory_type=h.memory.memory_type,
                score=round(h.score, 6),
                importance=h.memory.importance_score,
                created_at=h.memory.created_at,
            )
            for h in hits
        ]
        scores = await self.scorer.score(request.messages, task)
        assembled = await self.assembler.assemble(
            request.messages,
            [s.total for s in scores],
            candidates,
            request.budget_tokens,
            options,
        )
        assembled.query = query
        if self.settings.context_track_recalls and assembled.memories:
            await self.recall.track(user_id, [m.id for m in assembled.memories])
        cards_on = (
            self.settings.context_memory_cards
            if request.extract_cards is None
            else request.extract_cards
        )
        if cards_on and assembled.summary is not None and assembled.summary.cards:
            stored = await save_cards(
                self.memories,
                user_id,
                assembled.summary.cards,
                request.conversation_id or CARD_SOURCE_DEFAULT,
            )
            assembled.cards_saved = [(s.memory.id, s.merged) for s in stored]
        return assembled
