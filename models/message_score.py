"""Message importance scores and compression history per conversation (seed 000 持久化).

Both belong to a user: a conversation id names a conversation within one user's data,
so two callers using the same id never see or overwrite each other's rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Float, Index, Integer, PrimaryKeyConstraint, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base, BigIntPK, JSONType


class MessageScoreRecord(Base):
    """The latest score of one message (by position) of a conversation."""

    __tablename__ = "message_scores"
    # Keyed by (user_id, id) like every user-owned table (migration f4a6c8e0b2d1); SQLite
    # keeps ``id`` as its physical rowid key, the one column it numbers.
    __table_args__ = (
        PrimaryKeyConstraint("user_id", "id"),
        UniqueConstraint("user_id", "conversation_id", "message_index"),
    )

    id: Mapped[int] = mapped_column(BigIntPK, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(128))
    conversation_id: Mapped[str] = mapped_column(String(128))
    message_index: Mapped[int] = mapped_column(Integer)
    message_id: Mapped[str | None] = mapped_column(String(128), default=None)
    role: Mapped[str] = mapped_column(String(16))
    content_hash: Mapped[str] = mapped_column(String(64))
    task_hash: Mapped[str] = mapped_column(String(32))
    task_type: Mapped[str] = mapped_column(String(16))
    total: Mapped[float] = mapped_column(Float)
    dimensions: Mapped[dict[str, Any]] = mapped_column(JSONType)
    confidence: Mapped[float] = mapped_column(Float)
    method: Mapped[str] = mapped_column(String(8))
    reason: Mapped[str | None] = mapped_column(Text, default=None)
    # The LLM's own score (seed rubric, 0-10) when it was asked: reused for an unchanged
    # message under the same task, in this process or another.
    llm_score: Mapped[float | None] = mapped_column(Float, default=None)
    scored_at: Mapped[datetime]


class CompressionRecord(Base):
    """One smart_compress run on a conversation: what it kept and dropped."""

    __tablename__ = "message_compressions"
    __table_args__ = (
        PrimaryKeyConstraint("user_id", "id"),
        Index("ix_message_compressions_conversation", "user_id", "conversation_id", "id"),
    )

    id: Mapped[int] = mapped_column(BigIntPK, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(128))
    conversation_id: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime]
    task_hash: Mapped[str] = mapped_column(String(32))
    from_count: Mapped[int] = mapped_column(Integer)
    to_count: Mapped[int] = mapped_column(Integer)
    from_tokens: Mapped[int] = mapped_column(Integer)
    to_tokens: Mapped[int] = mapped_column(Integer)
    compression_rate: Mapped[float] = mapped_column(Float)
    target_count: Mapped[int | None] = mapped_column(Integer, default=None)
    budget_tokens: Mapped[int | None] = mapped_column(Integer, default=None)
    preserve_recent: Mapped[int] = mapped_column(Integer)
    kept: Mapped[list[int]] = mapped_column(JSONType)
    dropped: Mapped[list[int]] = mapped_column(JSONType)
