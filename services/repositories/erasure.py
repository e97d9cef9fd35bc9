"""Erasing a person, and the message scores that would recognise a forgotten text.

Every table that holds a user's rows is named here, with the kind the erasure reports it
as: tests/services/test_erasure.py fails when a table with a ``user_id`` column is
missing, so a new table cannot be left out of an erasure by accident.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import CursorResult, Table, delete, select, union
from sqlalchemy.ext.asyncio import AsyncSession

from models import (
    ApiKey,
    CompressionRecord,
    EmbeddingFailure,
    JobRun,
    MemoryAssociation,
    MemoryEmbedding,
    MemoryScoreHistory,
    MemoryTerm,
    MemoryTermStat,
    MemoryTopic,
    MemoryUser,
    MessageScoreRecord,
    UserMemory,
)
from services.repositories.dialect.seam import dialect_of

# (kind reported, model) in delete order: rows that reference memories before them.
ERASED: Sequence[tuple[str, Any]] = (
    ("vectors", MemoryEmbedding),
    ("unembeddable", EmbeddingFailure),
    ("postings", MemoryTerm),
    ("topics", MemoryTopic),
    ("links", MemoryAssociation),
    ("score_history", MemoryScoreHistory),
    ("memories", UserMemory),
    ("term_statistics", MemoryTermStat),
    ("message_scores", MessageScoreRecord),
    ("compressions", CompressionRecord),
    ("job_runs", JobRun),
    ("users", MemoryUser),
)
# Also reported: API keys bound to exactly this user, and the conversations the person had.
KINDS: Sequence[str] = ("conversations", *(kind for kind, _ in ERASED), "api_keys")


def _removed(result: Any) -> int:
    return max(int(result.rowcount or 0), 0) if isinstance(result, CursorResult) else 0


class ErasureRepository:
    """Deletes by user, counting what each statement removed."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session
        self.dialect = dialect_of(session)

    async def hold_user(self, user_id: str) -> None:
        """Wait for (and then hold) the user's ``memory_users`` row, as every write of
        their memories takes it first (MemoryRepository.lock_user): no write of the
        person runs beside the erasure on PostgreSQL (SQLite serialises at BEGIN)."""
        row = select(MemoryUser.user_id).where(MemoryUser.user_id == user_id)
        await self.session.execute(row.with_for_update())

    async def conversations(self, user_id: str) -> int:
        """How many distinct conversations of the user any table names."""
        ids = union(
            *(
                select(model.conversation_id).where(
                    model.user_id == user_id, model.conversation_id.is_not(None)
                )
                for model in (UserMemory, MessageScoreRecord, CompressionRecord)
            )
        ).subquery()
        found = await self.session.execute(select(ids.c[0]))
        return len(found.all())

    async def erase(self, user_id: str) -> dict[str, int]:
        """Delete every row of the user; how many of each kind (``KINDS``)."""
        counts = {"conversations": await self.conversations(user_id)}
        for kind, model in ERASED:
            table: Table = model.__table__
            result = await self.session.execute(delete(table).where(table.c.user_id == user_id))
            counts[kind] = _removed(result)
        keys = await self.session.execute(delete(ApiKey).where(ApiKey.user_prefix == user_id))
        counts["api_keys"] = _removed(keys)
        return counts

    async def drop_message_scores(
        self, user_id: str, hashes: Collection[str], ids: Collection[int] = ()
    ) -> int:
        """Delete the user's message scores of messages whose keyed content hash is one
        of ``hashes``, and those of ``ids``; how many."""
        m = MessageScoreRecord
        removed = 0
        for column, values in ((m.content_hash, sorted(hashes)), (m.id, sorted(ids))):
            if values:
                result = await self.session.execute(
                    delete(m).where(m.user_id == user_id, column.in_(values))
                )
                removed += _removed(result)
        return removed

    async def score_reasons(self, user_id: str) -> list[tuple[int, str]]:
        """Every stored reason (the LLM's words about a message) of the user's scores."""
        m = MessageScoreRecord
        rows = await self.session.execute(
            select(m.id, m.reason).where(m.user_id == user_id, m.reason.is_not(None))
        )
        return [(int(i), str(r)) for i, r in rows]
