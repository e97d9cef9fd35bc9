"""The composition root: every service built from settings, in one place.

``make run``, the MCP servers, the CLI, the scheduler, the evaluations, the benchmarks and
the tests all build their services here, so what one of them measures or answers is what
``jarvis-memory serve`` serves: the same providers (embedding model, reranker, LLM), the
same message scorer and the same recall. An edge that wired its own recall (the CLI once
recalled without the embedding model that the server used) answered differently.

:class:`Services` holds what a process builds once (the providers, which may hold a loaded
model, and the caches); its methods bind a service to one unit of work.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from dataclasses import dataclass, field

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from sqlalchemy.ext.asyncio import AsyncSession

from services.access.erasure import PersonEraser
from services.access.person_export import PersonExporter
from services.access.person_import import PersonImporter
from services.access.person_settings import PersonSettingsService
from services.context.assembly.knowledge import Recalled
from services.context.assembly.knowledge_cache import KnowledgeCache
from services.context.assembly.service import ContextService
from services.context.importance.background_scorer import BackgroundScorer
from services.context.importance.message_scorer import MessageImportanceScorer, build_message_scorer
from services.context.importance.service import MessageScoringService
from services.context.shared.llm_client import ChatCompletionsClient
from services.core.clock import Clock, utcnow
from services.core.db import Database
from services.core.settings import Settings
from services.embeddings.backfill import BackfillLoop
from services.embeddings.service import Embeddings, build_embeddings
from services.proxy.chat_proxy import ChatProxy
from services.proxy.errors import UpstreamNotConfigured
from services.proxy.upstream import Upstream
from services.recall.ranking.rerank import HttpReranker
from services.recall.recall_service import RecallService
from services.remembering.memory_service import MemoryService
from services.scoring.scheduler import build_scheduler
from services.text.analysis import TextAnalyzer


@dataclass
class Services:
    """What a process builds once and every unit of work shares."""

    settings: Settings
    db: Database
    analyzer: TextAnalyzer
    clock: Clock = utcnow
    # Built once: it holds the LLM answer cache and the per-message analysis caches.
    message_scorer: MessageImportanceScorer = field(init=False)
    # The summary writer for context assembly; None while no LLM is configured.
    llm: ChatCompletionsClient | None = field(init=False)
    # Optional providers (off by default): built once, the local model loads once.
    embeddings: Embeddings | None = field(init=False)
    reranker: HttpReranker | None = field(init=False)
    # The chat proxy's model server (LLM_BASE_URL); None while none is configured.
    upstream: Upstream | None = field(init=False)
    # What context requests recalled, per normalised query and the user's write version.
    knowledge_cache: KnowledgeCache[Recalled] = field(init=False)
    # Seed 000's background scoring; the edge that serves starts and stops its worker.
    background: BackgroundScorer = field(init=False)
    # Set once the database was found migrated to head (api/deps.py:get_session).
    schema_ready: bool = field(init=False, default=False)

    def __post_init__(self) -> None:
        self.message_scorer = build_message_scorer(self.analyzer, self.settings)
        self.llm = ChatCompletionsClient.from_settings(self.settings)
        self.embeddings = build_embeddings(self.settings)
        self.reranker = HttpReranker.from_settings(self.settings)
        self.upstream = Upstream.from_settings(self.settings)
        self.knowledge_cache = KnowledgeCache(
            self.settings.context_cache_ttl_seconds, self.settings.context_cache_size
        )
        self.background = BackgroundScorer(
            self.message_scorer, self.db, self.clock, self.settings.message_score_queue_size
        )

    @classmethod
    def from_settings(cls, settings: Settings, *, clock: Clock = utcnow) -> Services:
        """Services over the database ``settings`` names (the caller disposes ``db``)."""
        return cls(settings, Database.from_settings(settings), TextAnalyzer(settings), clock)

    def at(self, clock: Clock) -> Services:
        """These services reading ``clock`` instead (the evaluations replay each
        statement at its own instant); the providers and caches stay shared, so a model
        is loaded once. The background scorer keeps the process's clock."""
        moved = copy.copy(self)
        moved.clock = clock
        return moved

    def reconfigured(self, settings: Settings) -> Services:
        """Services with other settings (an evaluation's variant: the lexical row, recall
        without the model) on the same database, analyzer and clock; the providers are
        built from ``settings`` (a bundled model already loaded is loaded once per
        process)."""
        return Services(settings, self.db, self.analyzer, self.clock)

    @property
    def embedding_model(self) -> str | None:
        """The name the current vectors are stored under; None without embeddings."""
        return self.embeddings.model if self.embeddings is not None else None

    async def warm(self, *, embeddings: bool = True) -> None:
        """Load jieba's dictionaries and (``embeddings``) the embedding model now, not in
        the first request (a model that cannot be loaded only warns: recall goes on
        without it). The server loads the model in the background instead
        (:meth:`warm_embeddings`), so it answers ``/healthz`` during the load."""
        await asyncio.to_thread(self.analyzer.warm)
        if embeddings:
            await self.warm_embeddings()

    async def warm_embeddings(self) -> None:
        """Load the embedding model (``Embeddings.status`` says how far it got)."""
        if self.embeddings is not None:
            await self.embeddings.warm()

    def scheduler(self) -> AsyncIOScheduler:
        """The scheduled jobs of a serving process: rescoring and, with embeddings
        configured, their backfill (the caller starts and shuts it down)."""
        return build_scheduler(self.db, self.settings, self.clock, self.embeddings)

    def backfill_loop(self) -> BackfillLoop | None:
        """The embedding backfill of a process that runs no scheduler (the stdio MCP
        server), None without embeddings; the caller starts and closes it."""
        if self.embeddings is None:
            return None
        return BackfillLoop(self.db, self.settings, self.clock, self.embeddings)

    def memories(self, session: AsyncSession) -> MemoryService:
        """Remembering, bound to ``session``."""
        return MemoryService(session, self.settings, self.analyzer, self.clock, self.embeddings)

    def erasure(self, session: AsyncSession) -> PersonEraser:
        """Erasing people, bound to ``session``; it also empties this process's caches
        of them (the vectors, the recalls context assembly keeps)."""
        return PersonEraser(session, self._person_caches())

    def _person_caches(self) -> list[Callable[[str], None]]:
        """What forgets a person in this process's caches (the recalls, the vectors)."""
        caches: list[Callable[[str], None]] = [self.knowledge_cache.forget_user]
        if self.embeddings is not None:
            caches.append(self.embeddings.cache.invalidate)
        return caches

    def exporter(self) -> PersonExporter:
        """People's exports; each reads one snapshot of the database of its own."""
        return PersonExporter(self.db, self.clock)

    def importer(self, session: AsyncSession) -> PersonImporter:
        """Importing people's exports, bound to ``session``, with this process's
        analyzer (the index is rebuilt from the texts)."""
        return PersonImporter(session, self.analyzer, self.clock, self._person_caches())

    def person_settings(self, session: AsyncSession) -> PersonSettingsService:
        """People's settings (their time zone), bound to ``session``."""
        return PersonSettingsService(session, self.clock)

    def recall(self, session: AsyncSession) -> RecallService:
        """Recall with every configured source (the embedding model, the reranker)."""
        semantic = self.embeddings.source(session) if self.embeddings else None
        return RecallService(
            session,
            self.settings,
            self.analyzer,
            self.clock,
            semantic=semantic,
            reranker=self.reranker,
        )

    def message_scoring(self, session: AsyncSession) -> MessageScoringService:
        """Seed 000's message importance, bound to ``session``."""
        return MessageScoringService(
            session, self.settings, self.message_scorer, self.clock, self.background, self.llm
        )

    def context(self, session: AsyncSession) -> ContextService:
        """Context assembly with this process's recall and remembering."""
        return ContextService(
            session,
            self.settings,
            self.analyzer,
            self.message_scorer,
            self.clock,
            self.llm,
            recall=self.recall(session),
            memories=self.memories(session),
            cache=self.knowledge_cache,
            background=self.background,
        )

    def chat_proxy(self) -> ChatProxy:
        """The memory proxy in front of the configured model; it opens its own units of
        work (none stays open while the model answers). Refuses with 503
        ``llm_not_configured`` while no LLM_BASE_URL is set."""
        if self.upstream is None:
            raise UpstreamNotConfigured(
                "no model server is configured: set LLM_BASE_URL (and LLM_API_KEY) to use "
                "the chat proxy"
            )
        return ChatProxy(self.db, self.settings, self.upstream, self.context, self.memories)
