"""Links between two memories of the same user."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, CheckConstraint, Float, ForeignKeyConstraint, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base, JSONType, one_of

ASSOCIATION_KINDS = ("topic", "explicit")


class MemoryAssociation(Base):
    """An undirected pair, stored once with ``memory_id_a < memory_id_b``."""

    __tablename__ = "memory_associations"
    __table_args__ = (
        CheckConstraint("memory_id_a < memory_id_b", name="ordered_pair"),
        CheckConstraint(one_of("kind", ASSOCIATION_KINDS), name="kind"),
        CheckConstraint("weight > 0", name="weight_positive"),
        ForeignKeyConstraint(
            ["user_id", "memory_id_a"],
            ["user_memories.user_id", "user_memories.id"],
            ondelete="CASCADE",
        ),
        ForeignKeyConstraint(
            ["user_id", "memory_id_b"],
            ["user_memories.user_id", "user_memories.id"],
            ondelete="CASCADE",
        ),
        # The primary key serves lookups by memory_id_a; this one by memory_id_b.
        Index("ix_memory_associations_user_b", "user_id", "memory_id_b"),
    )

    user_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    memory_id_a: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    memory_id_b: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    weight: Mapped[float] = mapped_column(Float, default=1.0)
    shared_topics: Mapped[list[str]] = mapped_column(JSONType, default=list)
    created_at: Mapped[datetime]
