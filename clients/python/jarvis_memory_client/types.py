"""What the service answers and accepts, as typed dictionaries (the JSON as it comes).

Timestamps are ISO 8601 strings in UTC, as the API sends them.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict

Json = dict[str, Any]
MemoryType = Literal[
    "fact", "preference", "goal", "decision", "constraint", "todo", "event", "code", "other"
]
Level = Literal["high", "medium", "low"]
# Whose words: the person's own, or the assistant's reply kept as context.
Role = Literal["user", "assistant"]
Order = Literal["importance", "recent"]
RerankMode = Literal["fast", "balanced", "quality"]


class Scores(TypedDict):
    """The four components of the importance score and their weighted total."""

    importance: float
    level: Level
    frequency: float
    recency: float
    emotion: float
    impact: float
    scored_at: str | None


class Memory(TypedDict):
    """A stored memory."""

    id: int
    user_id: str
    content: str
    memory_type: MemoryType
    source: str | None
    conversation_id: str | None
    role: Role
    metadata: Json
    created_at: str
    updated_at: str
    frequency_count: int
    mention_count: int
    recall_count: int
    last_recalled_at: str | None
    last_mentioned_at: str | None
    emotion_tags: list[str]
    topics: list[str]
    associated_count: int
    importance_score: float
    importance_level: Level
    scores: Scores
    escalated_at: str | None
    fact_slot: str | None
    superseded_by_id: int | None
    superseded_at: str | None
    merged: NotRequired[bool | None]


class NewMemory(TypedDict):
    """One statement to remember (``remember_many``)."""

    content: str
    memory_type: NotRequired[MemoryType]
    source: NotRequired[str | None]
    metadata: NotRequired[Json]
    emotion_tags: NotRequired[list[str]]
    created_at: NotRequired[str | None]
    conversation_id: NotRequired[str | None]
    role: NotRequired[Role]


class MemoryChanges(TypedDict, total=False):
    """Fields of ``update_memory``; those left out stay as they are."""

    content: str
    memory_type: MemoryType
    source: str | None
    metadata: Json
    emotion_tags: list[str]


class RememberOptions(TypedDict, total=False):
    """The optional fields of ``remember``."""

    memory_type: MemoryType
    source: str | None
    metadata: Json
    emotion_tags: list[str]
    created_at: str | None
    conversation_id: str | None
    role: Role


class MemoryPage(TypedDict):
    """A page of memories; pass ``next_cursor`` back as ``cursor``."""

    items: list[Memory]
    next_cursor: str | None


class BatchResult(TypedDict):
    """One memory per item, in order."""

    items: list[Memory]
    created: int
    merged: int


class Link(TypedDict):
    """A link between two memories."""

    memory_id_a: int
    memory_id_b: int
    kind: str
    weight: float
    shared_topics: list[str]
    created_at: str


class RecallOptions(TypedDict, total=False):
    """The optional fields of ``recall``."""

    top_k: int
    explain: bool
    track: bool
    types: list[MemoryType]
    include_superseded: bool
    rerank_mode: RerankMode | None
    min_confidence: float | None


class RecallHit(TypedDict):
    """A recalled memory with the numbers behind its rank (``explanation`` with explain):
    ``confidence`` in [0, 1] that it is a result the person would accept (None for an
    empty query), ``evidence`` (query-dependent and -independent signals,
    ``context_of``) and whether this recall ``counted`` it."""

    memory: Memory
    score: float
    relevance: float
    importance: float
    confidence: float | None
    evidence: Json | None
    counted: bool
    explanation: Json | None


class RecallResult(TypedDict):
    """Best first; possibly fewer than ``top_k`` (only hits with evidence come back).
    ``sufficient``: the memories are enough to answer (seed 001 §1.2)."""

    results: list[RecallHit]
    sufficient: bool
    coverage: float


class UsedResult(TypedDict):
    """The memories ``used`` counted, as the count left them."""

    counted: list[int]
    memories: list[Memory]


class ChatMessage(TypedDict):
    """A chat message in the OpenAI chat-completions shape."""

    role: Literal["system", "developer", "user", "assistant", "tool"]
    content: str
    name: NotRequired[str | None]
    id: NotRequired[str | None]
    timestamp: NotRequired[float | None]
    topic_change: NotRequired[bool]
    phase: NotRequired[str | None]


class AdminUser(TypedDict):
    """A user with counts and the distribution of importance levels."""

    user_id: str
    memory_count: int
    levels: dict[str, int]
    updated_at: str


class AdminUsers(TypedDict):
    """A page of users."""

    items: list[AdminUser]
    next_cursor: str | None


class ScoreSnapshot(TypedDict):
    """A memory's score at one time, and why it was computed."""

    scored_at: str
    reason: str
    importance_score: float
    importance_level: Level
    frequency_score: float
    recency_score: float
    emotion_score: float
    impact_score: float


class AdminMemory(TypedDict):
    """One memory with its weighted contributions, links and score history."""

    memory: Memory
    contributions: dict[str, float]
    links: list[Link]
    history: list[ScoreSnapshot]


class JobRun(TypedDict):
    """A run of a scheduled job (rescoring, embedding backfill)."""

    id: int
    job: str
    trigger: str
    user_id: str | None
    status: str
    started_at: str
    finished_at: str | None
    rows: int
    escalations: int
    error: str | None
