"""The per-user memory row and its per-user aggregate."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Float,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from models.base import (
    Base,
    BigIntPK,
    JSONType,
    all_in_unit_range,
    all_non_negative,
    one_of,
)

MEMORY_TYPES = (
    "fact",
    "preference",
    "goal",
    "decision",
    "constraint",
    "todo",
    "event",
    "code",  # a command or code snippet worth keeping (seed 003 memory cards)
    "other",
)
IMPORTANCE_LEVELS = ("high", "medium", "low")
# Whose words a memory holds: the person's own (the default), or the assistant's reply,
# kept as context of a conversation. Only the person's words state facts about them.
MEMORY_ROLES = ("user", "assistant")
# The scores a memory stores: the four components of seed 002 and their clamped total.
SCORE_COLUMNS = (
    "importance_score",
    "frequency_score",
    "recency_score",
    "emotion_score",
    "impact_score",
)


class UserMemory(Base):
    """Something a person said, with the facts and scores that decide its importance.

    Keys are designed for sharding by ``user_id`` (Citus ``create_distributed_table``):
    the primary key, every index and unique constraint lead with ``user_id``, and child
    tables reference ``(user_id, id)``. ``id`` alone stays unique (one sequence), so the
    API's ids do not change. On SQLite the table keeps ``id`` as its physical primary key:
    SQLite numbers only an ``INTEGER PRIMARY KEY`` (the rowid), and its unique
    ``(user_id, id)`` is the key the child tables reference (migration e3b8f1a6c2d4).

    The database itself refuses a row no reader could present: an unknown
    type or level, a negative count, a score outside [0, 1].
    """

    __tablename__ = "user_memories"
    __table_args__ = (
        PrimaryKeyConstraint("user_id", "id"),
        CheckConstraint(one_of("memory_type", MEMORY_TYPES), name="memory_type"),
        CheckConstraint(one_of("importance_level", IMPORTANCE_LEVELS), name="importance_level"),
        CheckConstraint(one_of("role", MEMORY_ROLES), name="role"),
        CheckConstraint(
            all_non_negative(
                "frequency_count",
                "mention_count",
                "recall_count",
                "associated_count",
                "doc_length",
            ),
            name="counts",
        ),
        CheckConstraint(all_in_unit_range(*SCORE_COLUMNS), name="scores"),
        CheckConstraint(
            "superseded_by_id IS NULL OR superseded_by_id <> id", name="not_superseded_by_itself"
        ),
        # The key the child tables' foreign keys reference (the primary key's columns).
        UniqueConstraint("user_id", "id"),
        # Rescoring walks every user's memories in id ranges, and the admin finds one by id.
        Index("ix_user_memories_id", "id"),
        # The same words said by the person and by the assistant are two memories: a
        # repeat merges only into a memory of the same role (migration 1b7e4c9a2f60).
        UniqueConstraint("user_id", "content_hash", "role"),
        # Empty-query recall, admin listing and order=importance keyset pagination.
        Index("ix_user_memories_user_importance", "user_id", "importance_score", "id"),
        # order=recent keyset pagination.
        Index("ix_user_memories_user_created", "user_id", "created_at", "id"),
        Index("ix_user_memories_user_escalated", "user_id", "escalated_at"),
        # Fact correction (seed 001 §3.4): the current memory of a slot, and the memories a
        # memory superseded (restored when it is deleted; left out of recall cheaply: every
        # recall reads the user's superseded ids, so PostgreSQL keeps them in the index and
        # reads them index-only; SQLite's indexes hold the rowid, which is the id).
        Index("ix_user_memories_user_slot", "user_id", "fact_slot"),
        Index(
            "ix_user_memories_user_superseded_by",
            "user_id",
            "superseded_by_id",
            postgresql_include=["id"],
        ),
    )

    id: Mapped[int] = mapped_column(BigIntPK, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(128))
    content: Mapped[str] = mapped_column(Text)
    content_hash: Mapped[str] = mapped_column(String(64))
    memory_type: Mapped[str] = mapped_column(String(16), default="other")
    source: Mapped[str | None] = mapped_column(String(128), default=None)
    # The dialogue this memory is a turn of, set by whoever writes a conversation's turns
    # (a batch, an import, the LoCoMo harness). Recall lends continuity (seed 004 §4.2)
    # only between turns of one conversation: a person's separate statements in one chat
    # session are not each other's context.
    conversation_id: Mapped[str | None] = mapped_column(String(128), default=None)
    # Whose words these are (MEMORY_ROLES). An assistant turn is context of its
    # conversation: it never merges with the person's words, and states no fact slot.
    role: Mapped[str] = mapped_column(String(16), default="user", server_default="user")
    # "metadata" is reserved on declarative classes, so the attribute is ``meta``.
    meta: Mapped[dict[str, Any]] = mapped_column("metadata", JSONType, default=dict)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]

    frequency_count: Mapped[int] = mapped_column(Integer, default=0)
    mention_count: Mapped[int] = mapped_column(Integer, default=1)
    recall_count: Mapped[int] = mapped_column(Integer, default=0)
    last_recalled_at: Mapped[datetime | None] = mapped_column(default=None)
    last_mentioned_at: Mapped[datetime | None] = mapped_column(default=None)

    emotion_tags: Mapped[list[str]] = mapped_column(JSONType, default=list)
    # The emotion component is a property of the text (and explicit tags), fixed at write.
    emotion_score: Mapped[float] = mapped_column(Float, default=0.0)
    topics: Mapped[list[str]] = mapped_column(JSONType, default=list)
    associated_count: Mapped[int] = mapped_column(Integer, default=0)
    # Token count of the indexed text, for BM25 length normalisation.
    doc_length: Mapped[int] = mapped_column(Integer, default=0)

    importance_score: Mapped[float] = mapped_column(Float, default=0.0)
    importance_level: Mapped[str] = mapped_column(String(8), default="low")
    frequency_score: Mapped[float] = mapped_column(Float, default=0.0)
    recency_score: Mapped[float] = mapped_column(Float, default=0.0)
    impact_score: Mapped[float] = mapped_column(Float, default=0.0)
    scored_at: Mapped[datetime | None] = mapped_column(default=None)
    escalated_at: Mapped[datetime | None] = mapped_column(default=None)
    escalation_acknowledged_at: Mapped[datetime | None] = mapped_column(default=None)

    # Fact correction (seed 001 §3.4, services/remembering/facts): what this memory states
    # a value of ("residence", "manager", "favorite:food", …), and the newer memory of the
    # same user that replaced it. No foreign key: SQLite could only add one by rebuilding the table;
    # the service keeps the link inside the user and repairs it when a memory is deleted.
    fact_slot: Mapped[str | None] = mapped_column(String(64), default=None)
    superseded_by_id: Mapped[int | None] = mapped_column(BigInteger, default=None)
    superseded_at: Mapped[datetime | None] = mapped_column(default=None)


class MemoryUser(Base):
    """Per-user aggregates, kept by atomic increments (BM25 statistics and counts), and
    the person's settings."""

    __tablename__ = "memory_users"
    # No CHECK on the counts: they change by an upsert whose INSERT values are the deltas
    # (negative for a delete), and both databases check the proposed row before they find
    # the conflict that turns it into an UPDATE.

    user_id: Mapped[str] = mapped_column(String(128), primary_key=True)
    memory_count: Mapped[int] = mapped_column(BigInteger, default=0)
    total_doc_length: Mapped[int] = mapped_column(BigInteger, default=0)
    # + 1 by every write of the user's memories, in its transaction (MemoryRepository.
    # lock_user): a cache keyed by it is never read after a write, in any process.
    write_version: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    # The IANA zone the person's days are counted in ("yesterday", a memory's date);
    # None: UTC. Set by PATCH /v1/users/{user_id} (services/access/person_settings.py).
    time_zone: Mapped[str | None] = mapped_column(String(64), default=None)
