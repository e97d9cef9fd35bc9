"""Embedding vectors of memories (optional semantic recall)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKeyConstraint,
    Integer,
    LargeBinary,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base


class MemoryEmbedding(Base):
    """One memory's vector from one embedding model, as little-endian float32 bytes.

    Keyed by user first, like every table: a user's vectors are one index range, so a
    search reads that user's rows and nobody else's. A memory has at most one vector; the
    ``model`` column says which model made it, so a change of model is found (and the
    vector replaced) by the backfill job. Deleting the memory deletes its vector.
    """

    __tablename__ = "memory_embeddings"
    __table_args__ = (
        CheckConstraint("dim >= 1", name="dim_positive"),
        ForeignKeyConstraint(
            ["user_id", "memory_id"],
            ["user_memories.user_id", "user_memories.id"],
            ondelete="CASCADE",
        ),
    )

    user_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    memory_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    model: Mapped[str] = mapped_column(String(200))
    dim: Mapped[int] = mapped_column(Integer)
    vector: Mapped[bytes] = mapped_column(LargeBinary)
    embedded_at: Mapped[datetime]
    # SHA-256 (hex) of the exact text the vector was made from; NULL for vectors stored
    # before it was recorded (services/embeddings/service.py ``source_hash``).
    source_hash: Mapped[str | None] = mapped_column(String(64), default=None)


class EmbeddingFailure(Base):
    """A memory whose text the provider would not embed, though it embedded others.

    The backfill splits a failing batch down to single texts (services/embeddings/
    backfill_split.py); a text that fails alone while the provider still answers is
    recorded here and skipped by later runs of the same ``model`` while its memory would
    be embedded as the same text (``source_hash``, the SHA-256 of that text): an edit of
    the memory (or of a turn its vector is made with) makes it eligible again. Deleting
    the memory deletes the mark; storing a vector for it does too.
    """

    __tablename__ = "embedding_failures"
    __table_args__ = (
        ForeignKeyConstraint(
            ["user_id", "memory_id"],
            ["user_memories.user_id", "user_memories.id"],
            ondelete="CASCADE",
        ),
    )

    user_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    memory_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    model: Mapped[str] = mapped_column(String(200))
    source_hash: Mapped[str] = mapped_column(String(64))
    error: Mapped[str] = mapped_column(Text)
    failed_at: Mapped[datetime]
