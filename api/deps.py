"""FastAPI dependencies: the request's unit of work and services (auth: api/auth.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Annotated

from fastapi import Depends, Path, Request
from sqlalchemy.ext.asyncio import AsyncSession

from services.context.background_scoring import BackgroundScorer
from services.context.context_service import ContextService
from services.context.knowledge import Recalled
from services.context.knowledge_cache import KnowledgeCache
from services.context.llm_client import ChatCompletionsClient
from services.context.message_scorer import MessageImportanceScorer, build_message_scorer
from services.context.message_scoring_service import MessageScoringService
from services.core.clock import Clock
from services.core.db import Database
from services.core.errors import NotReady
from services.core.health import check_readiness
from services.core.settings import Settings
from services.core.validation import MAX_ID, USER_ID_PATTERN
from services.embeddings.service import Embeddings, build_embeddings
from services.recall.ranking.rerank import HttpReranker
from services.recall.recall_service import RecallService
from services.remembering.memory_service import MemoryService
from services.text.analysis import TextAnalyzer


@dataclass
class AppState:
    """What the lifespan builds once and every request shares."""

    settings: Settings
    db: Database
    analyzer: TextAnalyzer
    clock: Clock
    # Built once: it holds the LLM answer cache and the per-message analysis caches.
    message_scorer: MessageImportanceScorer = field(init=False)
    # The summary writer for context assembly; None while no LLM is configured.
    llm: ChatCompletionsClient | None = field(init=False)
    # Optional providers (off by default): built once, the local model loads once.
    embeddings: Embeddings | None = field(init=False)
    reranker: HttpReranker | None = field(init=False)
    # What context requests recalled, per normalised query and the user's write version.
    knowledge_cache: KnowledgeCache[Recalled] = field(init=False)
    # Seed 000's background scoring; the lifespan starts and stops its worker.
    background: BackgroundScorer = field(init=False)
    # Set once the database was found migrated to head (api/deps.py:get_session).
    schema_ready: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.message_scorer = build_message_scorer(self.analyzer, self.settings)
        self.llm = ChatCompletionsClient.from_settings(self.settings)
        self.embeddings = build_embeddings(self.settings)
        self.reranker = HttpReranker.from_settings(self.settings)
        self.knowledge_cache = KnowledgeCache(
            self.settings.context_cache_ttl_seconds, self.settings.context_cache_size
        )
        self.background = BackgroundScorer(
            self.message_scorer, self.db, self.clock, self.settings.message_score_queue_size
        )


async def get_state(request: Request) -> AppState:
    """The application's shared state.

    Every dependency here is ``async def``, though none awaits anything but another:
    FastAPI runs a plain ``def`` dependency in its thread pool, a thread hop per
    dependency per request. A recall paid two (this and the key check), an add three;
    they were 0.3 of the 2.1 ms the in-process HTTP layer added to a recall (py-spy,
    issue 5). A dependency that blocks would have to stay ``def``.
    """
    state: AppState = request.app.state.jarvis
    return state


StateDep = Annotated[AppState, Depends(get_state)]


async def ensure_schema_ready(state: AppState) -> None:
    """Refuse with 503 ``not_ready`` until the schema is found at head (then never
    checked again): every write of an unmigrated database was a 500 "no such table"
    (issue 29). Every entry point that opens units of work calls this first."""
    if state.schema_ready:
        return
    readiness = await check_readiness(state.db)
    if not readiness.ready:
        raise NotReady(f"the database is not ready: {readiness.database}")
    state.schema_ready = True


async def get_session(state: StateDep) -> AsyncIterator[AsyncSession]:
    """One unit of work per request: commit when the route returns, roll back on any error.

    Declared with ``scope="function"`` (``SessionDep`` below), so the COMMIT runs after
    the route function returns and before the response is sent. A yield dependency's
    default scope (``"request"``) exits only after the response has gone out: the client
    was told 201 for a write another connection could not see yet, and a COMMIT that then
    failed (a busy SQLite, a PostgreSQL serialization failure or deadlock, a full disk)
    lost a write the client believed stored, with no error it could see (issue 26). With
    the function scope a failed commit raises into the app's error handlers and becomes
    the response: 503 ``database_busy`` for contention, else 500 ``internal_error``.
    tests/api/test_commit_before_answer.py fails if a FastAPI upgrade changes that order.
    """
    await ensure_schema_ready(state)
    async with state.db.unit_of_work() as session:
        yield session


# scope="function": the unit of work commits before the answer leaves (get_session).
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]


async def get_memory_service(state: StateDep, session: SessionDep) -> MemoryService:
    """A MemoryService bound to the request's session."""
    return MemoryService(session, state.settings, state.analyzer, state.clock, state.embeddings)


def get_recall_service(state: StateDep, session: SessionDep) -> RecallService:
    """A RecallService bound to ``session`` (a plain function: the recall route builds
    one per unit of work, services/recall/tracked.py)."""
    semantic = state.embeddings.source(session) if state.embeddings else None
    return RecallService(
        session,
        state.settings,
        state.analyzer,
        state.clock,
        semantic=semantic,
        reranker=state.reranker,
    )


async def get_message_scoring_service(
    state: StateDep, session: SessionDep
) -> MessageScoringService:
    """A MessageScoringService bound to the request's session."""
    return MessageScoringService(
        session, state.settings, state.message_scorer, state.clock, state.background, state.llm
    )


async def get_context_service(state: StateDep, session: SessionDep) -> ContextService:
    """A ContextService bound to the request's session."""
    return ContextService(
        session,
        state.settings,
        state.analyzer,
        state.message_scorer,
        state.clock,
        state.llm,
        recall=get_recall_service(state, session),
        memories=await get_memory_service(state, session),
        cache=state.knowledge_cache,
        background=state.background,
    )


ContextServiceDep = Annotated[ContextService, Depends(get_context_service)]
MessageScoringDep = Annotated[MessageScoringService, Depends(get_message_scoring_service)]
MemoryServiceDep = Annotated[MemoryService, Depends(get_memory_service)]
UserId = Annotated[str, Path(pattern=USER_ID_PATTERN, description="1-128 of [A-Za-z0-9_.:@-]")]
MemoryId = Annotated[int, Path(ge=1, le=MAX_ID, description="a memory id")]
