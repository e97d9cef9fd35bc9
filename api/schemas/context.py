"""Request and response bodies of context assembly (``POST /v1/users/{id}/context``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from api.schemas.common import Bool, Int, NoNul
from api.schemas.messages import ChatMessageIn, ConversationId, TaskContext, TaskTypeName
from services.context.shared.messages import MAX_MESSAGES
from services.core.validation import MAX_TOP_K

Level = Literal["none", "light", "medium", "heavy", "extreme"]


class ContextIn(BaseModel):
    """The conversation so far, the budget, and what the memories should be about."""

    model_config = ConfigDict(extra="forbid")

    messages: Annotated[list[ChatMessageIn], Field(min_length=1, max_length=MAX_MESSAGES)]
    budget_tokens: Annotated[Int, Field(ge=1, le=10_000_000)]
    query: Annotated[StrictStr, NoNul, Field(max_length=8000)] | None = Field(
        default=None, description="what to recall memories for; default: the last user message"
    )
    task_context: TaskContext = ""
    task_type: TaskTypeName | None = None
    preserve_recent: Annotated[Int, Field(ge=0, le=MAX_MESSAGES)] | None = Field(
        default=None, description="newest messages always kept verbatim (CONTEXT_PRESERVE_RECENT)"
    )
    extract_cards: Bool | None = Field(
        default=None, description="save memory cards from a new summary (CONTEXT_MEMORY_CARDS)"
    )
    conversation_id: ConversationId | None = Field(
        default=None, description="the memory cards' source"
    )
    enable_memory_injection: bool | None = Field(
        default=None, description="inject the user's memories (CONTEXT_MEMORY_INJECTION)"
    )
    memory_top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K)] | None = Field(
        default=None, description="memories recalled for the block (CONTEXT_MEMORY_TOP_K)"
    )
    memory_max_tokens: Annotated[int, Field(ge=1, le=10_000_000)] | None = Field(
        default=None, description="most tokens of the memory block (CONTEXT_MEMORY_MAX_TOKENS)"
    )
    cursor: Annotated[str, Field(min_length=1, max_length=200)] | None = Field(
        default=None,
        description="next_cursor of an earlier answer for the same query: recall "
        "memory_top_k more memories",
    )
    current_phase: Annotated[str, Field(min_length=1, max_length=128)] | None = Field(
        default=None, description="the phase of work in progress, named in the LLM's prompt"
    )
    summarize_memories: bool | None = Field(
        default=None,
        description="the memory block as a 200-character summary of the recalled memories "
        "(true) or their lines (false); default CONTEXT_MEMORY_SUMMARY",
    )


class InjectedMemoryOut(BaseModel):
    """A memory in the ``memory_context`` block, as injected."""

    id: int
    memory_type: str
    text: str
    score: float
    importance: float
    tokens: int
    level: Level
    summarized: bool = Field(description="in the block's summary rather than a line of its own")


class DroppedMessageOut(BaseModel):
    """A message left out (summarised, or an old summary folded in)."""

    index: int
    score: float


class DroppedMemoryOut(BaseModel):
    """A recalled memory the budget left out."""

    id: int
    score: float


class SectionUsageOut(BaseModel):
    """One budget section: allocated after re-allocation, used, percentage."""

    allocated: int
    used: int
    percentage: float


class SummaryOut(BaseModel):
    """The rolling summary written this time."""

    method: Literal["llm", "extractive"]
    summarized: list[int]
    previous_folded: bool
    cards: list[dict[str, Any]]


class WindowOut(BaseModel):
    """Why the history was summarised this time, and where the current window starts."""

    trigger: Literal["instruction", "marked", "budget", "headroom"] = Field(
        description="a user's request for a new topic, a message marked topic_change, the "
        "history over its budget share, or too little headroom left"
    )
    start: int | None = Field(description="the message that started a new topic, if one did")


class MemorySummaryOut(BaseModel):
    """The recalled memories as one summary of at most 200 characters (seed 004)."""

    method: Literal["llm", "extractive"]
    text: str
    memory_ids: list[int]


class CardOut(BaseModel):
    """A memory card saved (or merged into an existing memory)."""

    memory_id: int
    merged: bool


class ContextOut(BaseModel):
    """The message list to send, what went in and out, and what it cost."""

    messages: list[dict[str, Any]]
    memories: list[InjectedMemoryOut]
    dropped: list[DroppedMessageOut]
    dropped_memories: list[DroppedMemoryOut]
    removed_memory_blocks: list[int]
    compressed: dict[str, Level]
    summary: SummaryOut | None
    cards: list[CardOut]
    usage: dict[str, SectionUsageOut]
    levels: dict[str, Level]
    query: str
    budget_tokens: int
    total_tokens: int
    compression_rate: float
    window: WindowOut | None = Field(description="set when the history was summarised")
    profile_memories: list[int] = Field(
        description="memories in the user_profile block (key user information) sent with a summary"
    )
    memory_summary: MemorySummaryOut | None
    next_cursor: str | None = Field(
        description="pass back as cursor (same query) to recall more memories; null: no more"
    )
    cache: Literal["hit", "miss", "off", ""] = Field(
        description='whether the knowledge cache answered the recall ("": nothing recalled)'
    )
    sufficient: bool | None = Field(
        default=None,
        description="seed 001 §1.2: the recalled memories are enough to answer (as for "
        "recall); null when no memories were recalled",
    )
    coverage: float | None = Field(
        default=None, description="share of the query's aspects the recalled memories cover"
    )
