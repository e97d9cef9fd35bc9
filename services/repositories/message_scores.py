"""SQL for persisted message scores and compression history."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from models import CompressionRecord, MessageScoreRecord

# Columns a re-score replaces; the key (user_id, conversation_id, message_index) stays.
_UPDATED = (
    "message_id",
    "role",
    "content_hash",
    "task_hash",
    "task_type",
    "total",
    "dimensions",
    "confidence",
    "method",
    "reason",
    "llm_score",
    "scored_at",
)


class MessageScoreRepository:
    """Reads and writes ``message_scores`` and ``message_compressions``."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def upsert(self, rows: Sequence[dict[str, Any]]) -> None:
        """Insert or replace the score of each (user_id, conversation_id, message_index) in one
        statement, so two requests scoring the same conversation cannot collide."""
        if not rows:
            return
        dialect = self.session.get_bind().dialect.name
        insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
        stmt = insert(MessageScoreRecord).values(list(rows))
        await self.session.execute(
            stmt.on_conflict_do_update(
                index_elements=["user_id", "conversation_id", "message_index"],
                set_={name: stmt.excluded[name] for name in _UPDATED},
            )
        )

    async def refine(
        self, user_id: str, conversation_id: str, rows: Sequence[dict[str, Any]]
    ) -> None:
        """Write the LLM's part into scores persisted earlier: each row (``message_index``,
        ``content_hash``, ``task_hash``, ``total``, ``method``, ``reason``, ``llm_score``,
        ``scored_at``) changes its message's score only while the message and the task
        are still the ones it was asked about; a newer request may have moved on."""
        if not rows:
            return
        table = cast(Table, MessageScoreRecord.__table__)
        c = table.c
        stmt = (
            update(table)
            .where(
                c.user_id == bindparam("owner"),
                c.conversation_id == bindparam("conversation"),
                c.message_index == bindparam("index"),
                c.content_hash == bindparam("hash"),
                c.task_hash == bindparam("task"),
            )
            .values(
                total=bindparam("new_total"),
                method=bindparam("new_method"),
                reason=bindparam("new_reason"),
                llm_score=bindparam("new_llm_score"),
                scored_at=bindparam("new_scored_at"),
            )
        )
        await self.session.execute(
            stmt,
            [
                {
                    "owner": user_id,
                    "conversation": conversation_id,
                    "index": r["message_index"],
                    "hash": r["content_hash"],
                    "task": r["task_hash"],
                    "new_total": r["total"],
                    "new_method": r["method"],
                    "new_reason": r["reason"],
                    "new_llm_score": r["llm_score"],
                    "new_scored_at": r["scored_at"],
                }
                for r in rows
            ],
        )

    async def scores(
        self,
        user_id: str,
        conversation_id: str,
        *,
        limit: int | None = None,
        after_index: int = -1,
    ) -> list[MessageScoreRecord]:
        """A user's conversation's scores in message order, from ``after_index + 1``."""
        stmt = (
            select(MessageScoreRecord)
            .where(
                MessageScoreRecord.user_id == user_id,
                MessageScoreRecord.conversation_id == conversation_id,
                MessageScoreRecord.message_index > after_index,
            )
            .order_by(MessageScoreRecord.message_index)
        )
        if limit is not None:
            stmt = stmt.limit(limit)
        return list((await self.session.execute(stmt)).scalars())

    async def add_compression(self, record: CompressionRecord) -> CompressionRecord:
        """Record one compression run."""
        self.session.add(record)
        await self.session.flush()
        return record

    async def compressions(
        self, user_id: str, conversation_id: str, *, limit: int, before_id: int | None = None
    ) -> list[CompressionRecord]:
        """A user's conversation's compression runs, newest first."""
        stmt = (
            select(CompressionRecord)
            .where(
                CompressionRecord.user_id == user_id,
                CompressionRecord.conversation_id == conversation_id,
            )
            .order_by(CompressionRecord.id.desc())
            .limit(limit)
        )
        if before_id is not None:
            stmt = stmt.where(CompressionRecord.id < before_id)
        return list((await self.session.execute(stmt)).scalars())
