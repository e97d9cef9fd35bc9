"""ORM rows → response bodies."""

from __future__ import annotations

from datetime import UTC, datetime

from api.schemas.admin import HistoryOut, JobRunOut
from api.schemas.memories import LinkOut, MemoryOut, ScoresOut
from models import JobRun, MemoryAssociation, MemoryScoreHistory, UserMemory


def memory_out(memory: UserMemory, merged: bool | None = None) -> MemoryOut:
    """The public view of a memory."""
    return MemoryOut(
        id=memory.id,
        user_id=memory.user_id,
        content=memory.content,
        memory_type=memory.memory_type,
        source=memory.source,
        conversation_id=memory.conversation_id,
        role=memory.role,
        metadata=memory.meta,
        created_at=memory.created_at,
        updated_at=memory.updated_at,
        frequency_count=memory.frequency_count,
        mention_count=memory.mention_count,
        recall_count=memory.recall_count,
        last_recalled_at=memory.last_recalled_at,
        last_mentioned_at=memory.last_mentioned_at,
        emotion_tags=memory.emotion_tags,
        topics=memory.topics,
        associated_count=memory.associated_count,
        importance_score=memory.importance_score,
        importance_level=memory.importance_level,
        scores=ScoresOut(
            importance=memory.importance_score,
            level=memory.importance_level,
            frequency=memory.frequency_score,
            recency=memory.recency_score,
            emotion=memory.emotion_score,
            impact=memory.impact_score,
            scored_at=memory.scored_at,
        ),
        escalated_at=memory.escalated_at,
        fact_slot=memory.fact_slot,
        superseded_by_id=memory.superseded_by_id,
        superseded_at=memory.superseded_at,
        merged=merged,
    )


def link_out(link: MemoryAssociation) -> LinkOut:
    """The public view of a link."""
    return LinkOut(
        memory_id_a=link.memory_id_a,
        memory_id_b=link.memory_id_b,
        kind=link.kind,
        weight=link.weight,
        shared_topics=link.shared_topics,
        created_at=link.created_at,
    )


def history_out(row: MemoryScoreHistory) -> HistoryOut:
    """A score snapshot."""
    return HistoryOut.model_validate(row, from_attributes=True)


def job_run_out(run: JobRun) -> JobRunOut:
    """A job run."""
    return JobRunOut.model_validate(run, from_attributes=True)


def iso(moment: datetime | None) -> str:
    """``2026-03-02T09:00:00Z``: ISO 8601 in UTC, to the second (``-`` for none), for text
    meant for people (the CLI's, the console's)."""
    if moment is None:
        return "-"
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
