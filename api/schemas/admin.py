"""Response bodies of the admin views: scores, history, jobs and users."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field, StrictStr

from api.schemas.common import Level, _Strict
from api.schemas.memories import LinkOut, MemoryOut
from services.core.validation import USER_ID_PATTERN


class HistoryOut(BaseModel):
    """A score snapshot."""

    scored_at: datetime
    reason: str
    importance_score: float
    importance_level: Level
    frequency_score: float
    recency_score: float
    emotion_score: float
    impact_score: float


class AdminMemoryOut(BaseModel):
    """One memory with its full score breakdown, links and history."""

    memory: MemoryOut
    contributions: dict[str, float]
    links: list[LinkOut]
    history: list[HistoryOut]


class JobRunOut(BaseModel):
    """A job run (rescoring or embedding backfill)."""

    id: int
    job: str
    trigger: str
    user_id: str | None
    status: str
    started_at: datetime
    finished_at: datetime | None
    rows: int
    escalations: int
    failures: int = Field(
        default=0, description="texts an embedding run could not embed, marked and skipped"
    )
    error: str | None


class RescoreIn(_Strict):
    """Run rescoring now, for everyone or one user."""

    user_id: Annotated[StrictStr, Field(pattern=USER_ID_PATTERN)] | None = None


class AdminUserOut(BaseModel):
    """A user with counts and the distribution of importance levels."""

    user_id: str
    memory_count: int
    levels: dict[str, int]
    updated_at: datetime


class AdminUsersOut(BaseModel):
    """A page of users."""

    items: list[AdminUserOut]
    next_cursor: str | None
