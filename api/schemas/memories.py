"""Request and response bodies of a user's memories (remember, list, edit, link)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import BaseModel, Field, StrictStr, model_validator

from api.schemas.common import (
    Content,
    CreatedAt,
    Float,
    Int,
    Level,
    MemoryType,
    Metadata,
    NoNul,
    Role,
    Tags,
    _Strict,
)
from services.core.validation import MAX_BATCH_ITEMS, MAX_ID, check_batch_size


class MemoryIn(_Strict):
    """A statement to remember."""

    content: Content
    memory_type: MemoryType = "other"
    source: Annotated[StrictStr, NoNul, Field(max_length=128)] | None = None
    metadata: Metadata = Field(default_factory=dict)
    emotion_tags: Tags = Field(default_factory=list)
    created_at: CreatedAt | None = None
    conversation_id: (
        Annotated[
            StrictStr,
            NoNul,
            Field(
                max_length=128,
                description="the dialogue this is a turn of (send it when you store a "
                "conversation's turns): recall lends a strong hit's relevance to the turns "
                "around it only within one conversation",
            ),
        ]
        | None
    ) = None
    role: Annotated[
        Role,
        Field(
            description='whose words: "user", the person\'s own (the default), or "assistant", '
            "the assistant's reply stored as context of a conversation. A statement merges "
            "only with words of its own role, and only the person's words state facts "
            "(fact slots)",
        ),
    ] = "user"


class MemoryBatchIn(_Strict):
    """Up to 1,000 statements and 1,000,000 characters of content, stored in order in one
    transaction."""

    items: Annotated[list[MemoryIn], Field(min_length=1, max_length=MAX_BATCH_ITEMS)]

    @model_validator(mode="after")
    def _within_size(self) -> MemoryBatchIn:
        check_batch_size([item.content for item in self.items])
        return self


class MemoryPatch(_Strict):
    """Fields to change; omitted fields stay as they are."""

    content: Content | None = None
    memory_type: MemoryType | None = None
    source: Annotated[StrictStr, NoNul, Field(max_length=128)] | None = None
    metadata: Metadata | None = None
    emotion_tags: Tags | None = None


class LinkIn(_Strict):
    """Link this memory to another memory of the same user."""

    target_id: Annotated[Int, Field(ge=1, le=MAX_ID, description="not this memory's own id")]
    weight: Annotated[Float, Field(gt=0, le=100)] = 1.0


class SupersedeIn(_Strict):
    """The newer memory (of the same user) that replaces this one."""

    by: Annotated[Int, Field(ge=1, le=MAX_ID, description="not this memory's own id")]


class ScoresOut(BaseModel):
    """The four components of seed 002 §3 and their weighted total."""

    importance: float
    level: Level
    frequency: float
    recency: float
    emotion: float
    impact: float
    scored_at: datetime | None


class MemoryOut(BaseModel):
    """A stored memory as the API returns it."""

    id: int
    user_id: str
    content: str
    memory_type: MemoryType
    source: str | None
    conversation_id: str | None
    role: Role = Field(description='whose words: "user" (the person\'s) or "assistant"')
    metadata: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    frequency_count: int
    mention_count: int
    recall_count: int
    last_recalled_at: datetime | None
    last_mentioned_at: datetime | None
    emotion_tags: list[str]
    topics: list[str]
    associated_count: int
    importance_score: float
    importance_level: Level
    scores: ScoresOut
    escalated_at: datetime | None
    fact_slot: str | None = Field(description='What it states, e.g. "residence" (fact correction)')
    superseded_by_id: int | None = Field(description="The newer memory that replaced it")
    superseded_at: datetime | None
    merged: bool | None = None


class MemoryPageOut(BaseModel):
    """A page of memories; pass ``next_cursor`` back as ``cursor`` for the next."""

    items: list[MemoryOut]
    next_cursor: str | None


class BatchOut(BaseModel):
    """One result per input item, in order."""

    items: list[MemoryOut]
    created: int
    merged: int


class LinkOut(BaseModel):
    """A link between two memories."""

    memory_id_a: int
    memory_id_b: int
    kind: str
    weight: float
    shared_topics: list[str]
    created_at: datetime
