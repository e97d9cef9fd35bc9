"""The per-user inverted index that recall and duplicate detection search."""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKeyConstraint,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base


class MemoryTerm(Base):
    """One term of one memory with its frequency (a BM25 posting).

    ``doc_length`` is copied from the memory so the whole BM25 sum can be computed
    from this table alone, inside the database.

    Recall reads the postings of the query's terms (thousands for a common term), so
    the postings are stored in primary-key order with their payload: SQLite keeps the
    table itself as that B-tree (``WITHOUT ROWID``) and PostgreSQL's primary key carries
    ``tf`` (``INCLUDE``), so the BM25 sum is an index-only range scan instead of one
    table lookup per posting (2-3x faster at 10k memories; docs/benchmarks.md).

    Within a term the key orders postings by ``doc_length``, shortest first: for the
    usual tf of 1 that is BM25's order of a term's contributions, so recall can read a
    very common term's best postings as one short range scan and stop
    (services/repositories/statements/bm25_sql.py). ``memory_id`` keeps the key unique.
    """

    __tablename__ = "memory_terms"
    __table_args__ = (
        PrimaryKeyConstraint(
            "user_id", "term", "doc_length", "memory_id", postgresql_include=["tf"]
        ),
        # A posting is a term the memory holds: at least once, in a text at least that long.
        CheckConstraint("tf >= 1 AND doc_length >= tf", name="tf"),
        ForeignKeyConstraint(
            ["user_id", "memory_id"],
            ["user_memories.user_id", "user_memories.id"],
            ondelete="CASCADE",
        ),
        # A memory's terms (duplicate checks, explanations, the delete of its postings),
        # answered from the index alone.
        Index("ix_memory_terms_user_memory_term", "user_id", "memory_id", "term"),
        {"sqlite_with_rowid": False},
    )

    user_id: Mapped[str] = mapped_column(String(128))
    term: Mapped[str] = mapped_column(String(64))
    memory_id: Mapped[int] = mapped_column(BigInteger)
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


class MemoryTermStat(Base):
    """How many of a user's memories hold a term (its document frequency).

    Kept by atomic increments at write and delete, so BM25's idf and the near-duplicate
    probe read a term's frequency with one primary-key lookup instead of counting its
    postings (which costs as much as the term is common).
    """

    __tablename__ = "memory_term_stats"
    __table_args__ = (CheckConstraint("df >= 0", name="df"),)

    user_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    term: Mapped[str] = mapped_column(String(64), primary_key=True)
    df: Mapped[int] = mapped_column(Integer, default=0)
