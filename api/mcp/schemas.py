"""What the MCP tools answer: compact memories an assistant's model reads well.

The REST bodies carry every counter and score component; a model reading a tool's
answer needs the text, what kind of statement it is, how important it is and why it
came back, so these are smaller views of the same rows.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from pydantic import BaseModel, Field

from api.schemas.common import Level, MemoryType, Role
from models import UserMemory
from services.core.validation import USER_ID_PATTERN

UserIdArg = Annotated[
    str,
    Field(pattern=USER_ID_PATTERN, description="whose memories: 1-128 of [A-Za-z0-9_.:@-]"),
]


class MemoryView(BaseModel):
    """One memory as a tool returns it."""

    id: int
    content: str
    memory_type: MemoryType
    role: Role = Field(default="user", description='whose words: "user" or "assistant"')
    tags: list[str] = Field(description="emotion tags (given or found in the text)")
    importance: float = Field(description="0-1, the weighted importance score")
    level: Level
    created_at: datetime
    mention_count: int
    superseded_by_id: int | None = Field(
        default=None, description="the newer memory that corrected this one"
    )

    @classmethod
    def of(cls, memory: UserMemory) -> MemoryView:
        """The view of a stored memory."""
        return cls(
            id=memory.id,
            content=memory.content,
            memory_type=memory.memory_type,
            role=memory.role,
            tags=list(memory.emotion_tags),
            importance=round(memory.importance_score, 4),
            level=memory.importance_level,
            created_at=memory.created_at,
            mention_count=memory.mention_count,
            superseded_by_id=memory.superseded_by_id,
        )


class Remembered(BaseModel):
    """The stored memory; ``merged`` when it repeated one already stored."""

    memory: MemoryView
    merged: bool


class Why(BaseModel):
    """Why a memory came back: the query's type and the signals' shares of the score."""

    query_type: str | None
    signals: dict[str, float] = Field(
        description="each signal's contribution to the score (they add up to it), zeros left out"
    )
    matched_terms: list[str] = Field(description="query terms the memory contains")


class RecallHitView(BaseModel):
    """A recalled memory, its score and why."""

    memory: MemoryView
    score: float
    relevance: float
    importance: float
    confidence: float | None = Field(
        description="chance in [0, 1] that this is a result the person would accept "
        "(null for an empty query)"
    )
    context_of: int | None = Field(
        description="the hit this memory is the conversation neighbour of, when it matched "
        "nothing itself"
    )
    why: Why | None


class Recalled(BaseModel):
    """Best first; fewer than top_k when fewer memories have evidence."""

    results: list[RecallHitView]
    sufficient: bool = Field(
        description="the memories are enough to answer (at least 3 results, coverage 0.8, "
        "mean confidence 0.75); when false, look elsewhere too"
    )
    coverage: float = Field(description="share of the query's aspects the results cover")


class Forgotten(BaseModel):
    """The memory that was forgotten."""

    forgotten: int


class MemoryList(BaseModel):
    """A page of memories; pass ``next_cursor`` back as ``cursor`` for the next."""

    items: list[MemoryView]
    next_cursor: str | None


class Corrected(BaseModel):
    """The old memory, now superseded, and the memory that replaced it."""

    old: MemoryView
    new: MemoryView


class InjectedMemory(BaseModel):
    """A memory placed in the assembled context."""

    id: int
    text: str
    score: float


class ContextMessage(BaseModel):
    """One message of the assembled context."""

    role: str
    content: str


class Assembled(BaseModel):
    """The messages to send to the model, within the budget."""

    messages: list[ContextMessage]
    memories: list[InjectedMemory]
    total_tokens: int
    budget_tokens: int
