"""Score history and scheduled job runs."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    PrimaryKeyConstraint,
    String,
    Text,
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
from models.memory import IMPORTANCE_LEVELS, SCORE_COLUMNS

# Every state a job run is recorded in (services/job_runs/bookkeeping.py).
JOB_STATUSES = ("running", "succeeded", "failed", "skipped")


class MemoryScoreHistory(Base):
    """A snapshot of a memory's importance whenever it moved noticeably."""

    __tablename__ = "memory_score_history"
    __table_args__ = (
        # Keyed by user first, like user_memories (whose docstring says why SQLite's
        # physical key stays ``id``).
        PrimaryKeyConstraint("user_id", "id"),
        CheckConstraint(one_of("importance_level", IMPORTANCE_LEVELS), name="importance_level"),
        CheckConstraint(all_in_unit_range(*SCORE_COLUMNS), name="scores"),
        ForeignKeyConstraint(
            ["user_id", "memory_id"],
            ["user_memories.user_id", "user_memories.id"],
            ondelete="CASCADE",
        ),
        Index("ix_memory_score_history_user_memory", "user_id", "memory_id", "scored_at"),
    )

    id: Mapped[int] = mapped_column(BigIntPK, autoincrement=True)
    user_id: Mapped[str] = mapped_column(String(128))
    memory_id: Mapped[int] = mapped_column(BigInteger)
    scored_at: Mapped[datetime]
    reason: Mapped[str] = mapped_column(String(16))
    importance_score: Mapped[float] = mapped_column(Float)
    importance_level: Mapped[str] = mapped_column(String(8))
    frequency_score: Mapped[float] = mapped_column(Float)
    recency_score: Mapped[float] = mapped_column(Float)
    emotion_score: Mapped[float] = mapped_column(Float)
    impact_score: Mapped[float] = mapped_column(Float)


class JobRun(Base):
    """One run of a scheduled (or on-demand) job, written even when it fails."""

    __tablename__ = "job_runs"
    __table_args__ = (
        CheckConstraint(one_of("status", JOB_STATUSES), name="status"),
        CheckConstraint(all_non_negative("rows", "escalations"), name="counts"),
        Index("ix_job_runs_job_started", "job", "started_at"),
    )

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    job: Mapped[str] = mapped_column(String(32))
    trigger: Mapped[str] = mapped_column(String(16))
    user_id: Mapped[str | None] = mapped_column(String(128), default=None)
    status: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None] = mapped_column(default=None)
    rows: Mapped[int] = mapped_column(Integer, default=0)
    escalations: Mapped[int] = mapped_column(Integer, default=0)
    # Items the run could not process and marked to skip (the embedding backfill's texts
    # the provider would not embed alone: models/embedding.py ``EmbeddingFailure``).
    failures: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    error: Mapped[str | None] = mapped_column(Text, default=None)
    # Memories per importance level when a full rescoring run finished: what /metrics
    # reports as jarvis_memories{level} without counting the table on every scrape.
    levels: Mapped[dict[str, int] | None] = mapped_column(JSONType, default=None)
