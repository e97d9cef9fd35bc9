"""The per-user inverted index that recall and duplicate detection search."""

from __future__ import annotations

from sqlalchemy import BigInteger, ForeignKeyConstraint, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base


class MemoryTerm(Base):
    """One term of one memory with its frequency (a BM25 posting).

    ``doc_length`` is copied from the memory so the whole BM25 sum can be computed
    from this table alone, inside the database.
    """

    __tablename__ = "memory_terms"
    __table_args__ = (
        ForeignKeyConstraint(
            ["user_id", "memory_id"],
            ["user_memories.user_id", "user_memories.id"],
            ondelete="CASCADE",
        ),
        # Deleting a memory removes its postings; this index serves that delete.
        Index("ix_memory_terms_user_memory", "user_id", "memory_id"),
    )

    user_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    term: Mapped[str] = mapped_column(String(64), primary_key=True)
    memory_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    tf: Mapped[int] = mapped_column(Integer)
    doc_length: Mapped[int] = mapped_column(Integer)


class MemoryTopic(Base):
    """A topic of a memory; memories sharing a topic are associated (impact)."""

    __tablename__ = "memory_topics"
    __table_args__ = (
        ForeignKeyConstraint(
            ["user_id", "memory_id"],
            ["user_memories.user_id", "user_memories.id"],
            ondelete="CASCADE",
        ),
        Index("ix_memory_topics_user_memory", "user_id", "memory_id"),
    )

    user_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    topic: Mapped[str] = mapped_column(String(64), primary_key=True)
    memory_id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
