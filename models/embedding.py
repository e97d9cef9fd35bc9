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
