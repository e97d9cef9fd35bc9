"""SQL for memory embeddings, scoped by ``user_id`` (the backfill's scan excepted)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from models import EmbeddingFailure, MemoryEmbedding, UserMemory
from services.repositories.dialect.seam import upsert_insert
from services.repositories.memories import IDS_PER_STATEMENT, INSERT_ROWS_PER_STATEMENT


@dataclass(frozen=True)
class StoredVector:
    """A vector to store: its memory, float32 bytes and dimension, the hash of the text
    it was made from, and (``content``) the memory's text that text was built on: given,
    the vector is stored only while the memory still has it."""

    memory_id: int
    data: bytes
    dim: int
    source_hash: str | None = None
    content: str | None = None


@dataclass(frozen=True)
class Unembedded:
    """A memory without a vector from the current model (the backfill's work item)."""

    user_id: str
    memory_id: int
    content: str
    conversation_id: str | None = None  # a turn of this conversation
    created_at: datetime | None = None
    # The hash of the text the provider failed to embed under this model, if it did
    # (the backfill skips the memory while its text still hashes the same).
    failed_hash: str | None = None


@dataclass(frozen=True)
class FailedText:
    """A memory whose text (hashed) the provider would not embed, and its error."""

    memory_id: int
    source_hash: str
    error: str


class EmbeddingRepository:
    """Reads and writes ``memory_embeddings`` for one session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def store(
        self, user_id: str, model: str, vectors: Sequence[StoredVector], now: datetime
    ) -> int:
        """Insert or replace the vectors of memories that (still) exist and (where the
        vector names it) still have the content it was made from; how many stored.

        The memories are read with a share lock on PostgreSQL (SQLite's unit of work holds
        the database's write lock from its BEGIN), so an edit or a delete either committed
        before that read, and the vector is skipped, or waits for this transaction and then
        replaces or drops the vector itself: a slow backfill never stores the vector of an
        old text after the edit, nor trips the foreign key.
        """
        current = await self._current(user_id, sorted({v.memory_id for v in vectors}))
        kept = [
            v
            for v in vectors
            if v.memory_id in current and v.content in (None, current[v.memory_id])
        ]
        rows = [
            {
                "user_id": user_id,
                "memory_id": v.memory_id,
                "model": model,
                "dim": v.dim,
                "vector": v.data,
                "embedded_at": now,
                "source_hash": v.source_hash,
            }
            for v in kept
        ]
        await self._upsert(MemoryEmbedding, rows)
        await self._unmark(user_id, sorted({v.memory_id for v in kept}))
        return len(rows)

    async def mark_failed(
        self, user_id: str, model: str, failures: Sequence[FailedText], now: datetime
    ) -> int:
        """Record (or re-record) texts the provider would not embed; how many."""
        current = await self._current(user_id, sorted({f.memory_id for f in failures}))
        rows = [
            {
                "user_id": user_id,
                "memory_id": f.memory_id,
                "model": model,
                "source_hash": f.source_hash,
                "error": f.error[:2000],
                "failed_at": now,
            }
            for f in failures
            if f.memory_id in current  # not deleted meanwhile
        ]
        await self._upsert(EmbeddingFailure, rows)
        return len(rows)

    async def _upsert(
        self, model: type[MemoryEmbedding | EmbeddingFailure], rows: list[dict[str, Any]]
    ) -> None:
        """Insert rows keyed by (user, memory), replacing every other column of a row
        already there."""
        insert = upsert_insert(self.session)
        for start in range(0, len(rows), INSERT_ROWS_PER_STATEMENT):
            statement = insert(model).values(rows[start : start + INSERT_ROWS_PER_STATEMENT])
            replaced = [name for name in rows[0] if name not in ("user_id", "memory_id")]
            await self.session.execute(
                statement.on_conflict_do_update(
                    index_elements=["user_id", "memory_id"],
                    set_={name: statement.excluded[name] for name in replaced},
                )
            )

    async def _unmark(self, user_id: str, ids: Sequence[int]) -> None:
        """Forget the failures of memories that now have a vector."""
        for start in range(0, len(ids), IDS_PER_STATEMENT):
            await self.session.execute(
                delete(EmbeddingFailure).where(
                    EmbeddingFailure.user_id == user_id,
                    EmbeddingFailure.memory_id.in_(ids[start : start + IDS_PER_STATEMENT]),
                )
            )

    async def failed(self, model: str) -> int:
        """How many memories hold a mark of a text ``model`` would not embed."""
        result = await self.session.execute(
            select(func.count())
            .select_from(EmbeddingFailure)
            .where(EmbeddingFailure.model == model)
        )
        return int(result.scalar_one())

    async def _current(self, user_id: str, ids: Sequence[int]) -> dict[int, str]:
        """Memory id → content of those of ``ids`` that exist, share-locked in id order
        (PostgreSQL; writes lock memories in id order too)."""
        found: dict[int, str] = {}
        for start in range(0, len(ids), IDS_PER_STATEMENT):
            result = await self.session.execute(
                select(UserMemory.id, UserMemory.content)
                .where(
                    UserMemory.user_id == user_id,
                    UserMemory.id.in_(ids[start : start + IDS_PER_STATEMENT]),
                )
                .order_by(UserMemory.id)
                .with_for_update(read=True)
            )
            found.update((int(i), str(c)) for i, c in result)
        return found

    async def forget(self, user_id: str, memory_id: int) -> None:
        """Drop a memory's vector (its text changed and no new vector could be made)."""
        await self.session.execute(
            delete(MemoryEmbedding).where(
                MemoryEmbedding.user_id == user_id, MemoryEmbedding.memory_id == memory_id
            )
        )

    async def signature(self, user_id: str, model: str) -> tuple[int, datetime | None]:
        """(count, newest ``embedded_at``) of a user's vectors: changes when they do."""
        result = await self.session.execute(
            select(func.count(), func.max(MemoryEmbedding.embedded_at)).where(
                MemoryEmbedding.user_id == user_id, MemoryEmbedding.model == model
            )
        )
        count, newest = result.one()
        return int(count), newest

    async def vectors(self, user_id: str, model: str) -> list[tuple[int, bytes]]:
        """Every vector of one user from one model: one range of the primary key."""
        result = await self.session.execute(
            select(MemoryEmbedding.memory_id, MemoryEmbedding.vector).where(
                MemoryEmbedding.user_id == user_id, MemoryEmbedding.model == model
            )
        )
        return [(int(memory_id), bytes(data)) for memory_id, data in result]

    async def models(self, user_id: str) -> dict[str, int]:
        """Model name → how many of the user's vectors it made (admin and tests)."""
        result = await self.session.execute(
            select(MemoryEmbedding.model, func.count())
            .where(MemoryEmbedding.user_id == user_id)
            .group_by(MemoryEmbedding.model)
        )
        return {str(model): int(n) for model, n in result}

    async def pending(self, model: str) -> tuple[int, datetime | None]:
        """How many memories have no vector from ``model`` and no mark of a text it would
        not embed (those are :meth:`failed`), and when the oldest of them was written:
        one anti-join, each memory read from the covering index
        ``ix_user_memories_user_created`` and its vector and mark probed by primary key."""
        result = await self.session.execute(
            select(func.count(), func.min(UserMemory.created_at))
            .select_from(UserMemory)
            .outerjoin(MemoryEmbedding, _vector_of(model))
            .outerjoin(EmbeddingFailure, _failure_of(model))
            .where(MemoryEmbedding.memory_id.is_(None), EmbeddingFailure.memory_id.is_(None))
        )
        count, oldest = result.one()
        return int(count), oldest

    async def unembedded(
        self, model: str, before_id: int | None, limit: int, user_id: str | None = None
    ) -> list[Unembedded]:
        """The newest memories (below ``before_id``, if given) with no vector from ``model``,
        newest first: what was just said is searchable first.

        A memory whose vector another model made counts as missing, so a change of model
        re-embeds everything, a batch at a time. Each comes with the hash of the text
        ``model`` failed to embed, if it did (``failed_hash``): the caller, which knows
        the text it would embed now, skips the memory while that text is the same.
        """
        query = (
            select(
                UserMemory.user_id,
                UserMemory.id,
                UserMemory.content,
                UserMemory.conversation_id,
                UserMemory.created_at,
                EmbeddingFailure.source_hash,
            )
            .outerjoin(MemoryEmbedding, _vector_of(model))
            .outerjoin(EmbeddingFailure, _failure_of(model))
            .where(MemoryEmbedding.memory_id.is_(None))
            .order_by(UserMemory.id.desc())
            .limit(limit)
        )
        if before_id is not None:
            query = query.where(UserMemory.id < before_id)
        if user_id is not None:
            query = query.where(UserMemory.user_id == user_id)
        result = await self.session.execute(query)
        return [
            Unembedded(str(u), int(i), str(c), None if k is None else str(k), at, f)
            for u, i, c, k, at, f in result
        ]

    async def sources(
        self, model: str, after_id: int, limit: int, user_id: str | None = None
    ) -> list[tuple[Unembedded, str | None]]:
        """Memories after ``after_id`` (id order) with a vector from ``model``, each with
        the source hash stored with it (``jarvis-memory embed --verify``)."""
        joined = _vector_of(model)
        query = (
            select(
                UserMemory.user_id,
                UserMemory.id,
                UserMemory.content,
                UserMemory.conversation_id,
                UserMemory.created_at,
                MemoryEmbedding.source_hash,
            )
            .join(MemoryEmbedding, joined)
            .where(UserMemory.id > after_id)
            .order_by(UserMemory.id)
            .limit(limit)
        )
        if user_id is not None:
            query = query.where(UserMemory.user_id == user_id)
        result = await self.session.execute(query)
        return [
            (Unembedded(str(u), int(i), str(c), None if k is None else str(k), at), h)
            for u, i, c, k, at, h in result
        ]


def _vector_of(model: str) -> ColumnElement[bool]:
    """A memory joined to its vector from ``model`` (the backfill's and verify's walks)."""
    return and_(
        MemoryEmbedding.user_id == UserMemory.user_id,
        MemoryEmbedding.memory_id == UserMemory.id,
        MemoryEmbedding.model == model,
    )


def _failure_of(model: str) -> ColumnElement[bool]:
    """A memory joined to its mark of a text ``model`` would not embed."""
    return and_(
        EmbeddingFailure.user_id == UserMemory.user_id,
        EmbeddingFailure.memory_id == UserMemory.id,
        EmbeddingFailure.model == model,
    )
