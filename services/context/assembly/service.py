"""ContextService: assemble a user's context for the model (``POST /v1/users/{id}/context``).

Private memories first (seed 001 §1): the user's memories are recalled through
:meth:`RecallService.recall_memories` with the request's ``query``, by default the last
user message. The recall itself runs with ``track=False`` and only the memories that are
really injected are then counted as recalled (``CONTEXT_TRACK_RECALLS``), and of those
only the ones a tracked recall would count (``RECALL_COUNT_MIN_CONFIDENCE``): a memory
the budget left out was not used, and must not gain frequency from it. The answer says
whether the recalled memories are ``sufficient`` (seed 001 §1.2) and their ``coverage``.

Messages are scored by the message scorer of seed 000 (rules; the LLM for uncertain ones
when configured), the assembly itself is :class:`ContextAssembler`, and memory cards of a
new summary are saved through :class:`MemoryService` (repeats merge and raise frequency).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from services.context.assembly.assembler import AssembledContext, AssemblyOptions, ContextAssembler
from services.context.assembly.budget import shares_from_settings
from services.context.assembly.knowledge import KnowledgeLoader, Recalled
from services.context.assembly.knowledge_cache import KnowledgeCache
from services.context.assembly.profile import MAX_PROFILE_FACTS, ProfileFact
from services.context.assembly.recalled_summary import SummaryMode
from services.context.importance.background_scorer import (
    BackgroundScorer,
    ScoringJob,
    submit_after_commit,
)
from services.context.importance.message_scorer import MessageImportanceScorer
from services.context.rolling_summary.cards import save_cards
from services.context.rolling_summary.extractive import sentence_score
from services.context.shared.levels import LevelCompressor
from services.context.shared.llm_client import ChatCompletionsClient
from services.context.shared.messages import ChatMessage, validate_messages
from services.context.shared.tokens import get_token_estimator
from services.core.clock import Clock
from services.core.errors import InvalidInput
from services.core.settings import Settings
from services.core.validation import MAX_TOP_K, check_user_id
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
    # Seed 003 §6; None takes the setting.
    enable_memory_injection: bool | None = None
    memory_top_k: int | None = None
    memory_max_tokens: int | None = None
    cursor: str | None = None  # seed 001 §4.3: more memories than the last request had
    current_phase: str | None = None  # named in the LLM's scoring prompt (seed 000)
    summarize_memories: bool | None = None  # seed 004: True always, False never


T = TypeVar("T")


def _given(value: T | None, default: T) -> T:
    """The request's value, or the setting when the request left it out."""
    return default if value is None else value


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
        cache: KnowledgeCache[Recalled] | None = None,
        background: BackgroundScorer | None = None,
    ) -> None:
        self.settings = settings
        self.analyzer = analyzer
        self.scorer = scorer
        # The edge passes services wired with the optional providers (embeddings, reranker).
        self.recall = recall or RecallService(session, settings, analyzer, clock)
        self.memories = memories or MemoryService(session, settings, analyzer, clock)
        self.knowledge = KnowledgeLoader(self.recall, self.memories, clock, cache, llm)
        self.session = session
        self.background = background
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
            memory_max_tokens=_given(request.memory_max_tokens, s.context_memory_max_tokens),
            headroom_share=s.context_headroom_share,
            headroom_tokens=s.context_headroom_tokens,
        )

    def _in_background(self) -> bool:
        return (
            self.settings.message_score_background
            and self.background is not None
            and self.scorer.has_llm
        )

    async def assemble(self, user_id: str, request: ContextRequest) -> AssembledContext:
        """The context to send; see :mod:`services.context.assembly.assembler`."""
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
            task = self.scorer.task(request.task_context, request.task_type, request.current_phase)
        except ValueError as exc:
            raise InvalidInput(str(exc)) from exc
        query = request.query if request.query is not None else last_user_message(request.messages)
        query = query[:MAX_QUERY_CHARS]
        s = self.settings
        top_k = _given(request.memory_top_k, s.context_memory_top_k)
        if not 1 <= top_k <= MAX_TOP_K:
            raise InvalidInput(f"memory_top_k must be between 1 and {MAX_TOP_K}")
        mode: SummaryMode = s.context_memory_summary
        if request.summarize_memories is not None:
            mode = "always" if request.summarize_memories else "off"
        knowledge = None
        if _given(request.enable_memory_injection, s.context_memory_injection):
            knowledge = await self.knowledge.load(user_id, query, top_k, request.cursor, mode)
        background = self.background if self._in_background() else None
        scores = await self.scorer.score(request.messages, task, ask_llm=background is None)
        pending = tuple(score.index for score in scores if score.pending)
        if background is not None and pending:
            # The LLM's answers fill the scorer's cache for the next assembly (seed 000).
            job = ScoringJob(tuple(request.messages), task, pending)
            if background.accepting:
                submit_after_commit(self.session, background, job)
            else:
                background.drop(job, "background scoring queue full or stopped")

        async def profile() -> list[ProfileFact]:
            rows = await self.memories.profile(user_id, MAX_PROFILE_FACTS)
            return [ProfileFact(i, slot, text) for i, slot, text in rows]

        assembled = await self.assembler.assemble(
            request.messages,
            [score.total for score in scores],
            knowledge.candidates if knowledge else (),
            request.budget_tokens,
            options,
            profile,
            knowledge.summary if knowledge else None,
        )
        assembled.query = query
        countable: frozenset[int] = frozenset()
        if knowledge is not None:
            assembled.next_cursor, assembled.cache = knowledge.next_cursor, knowledge.cache
            countable = knowledge.countable
            if knowledge.sufficiency is not None:
                assembled.sufficient = knowledge.sufficiency.sufficient
                assembled.coverage = knowledge.sufficiency.coverage
        # Counted as a tracked recall counts: injected, and confident enough.
        used = [m.id for m in assembled.memories if m.id in countable]
        if self.settings.context_track_recalls and used:
            await self.recall.track(user_id, used)
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
