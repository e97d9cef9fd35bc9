"""Request and response bodies of message scoring and compression."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr, model_validator

from api.schemas.common import Bool, Float, Int, NoNul, _Strict
from services.context.importance.weights import TASK_TYPE_ALIASES, TASK_TYPES
from services.context.shared.messages import MAX_MESSAGE_CHARS, MAX_MESSAGES, ChatMessage
from services.core.validation import USER_ID_PATTERN

Role = Literal["system", "developer", "user", "assistant", "tool"]
ConversationId = Annotated[StrictStr, Field(pattern=USER_ID_PATTERN)]
# The task types by name, English or the seed's Chinese (services/context/importance/weights.py).
TaskTypeName = Literal[
    "default",
    "refactor",
    "debugging",
    "requirements",
    "代码重构",
    "重构",
    "bug调试",
    "调试",
    "debug",
    "需求分析",
    "requirements_analysis",
    "默认",
]
assert set(TaskTypeName.__args__) == {*TASK_TYPES, *TASK_TYPE_ALIASES}  # type: ignore[attr-defined]
TaskContext = Annotated[StrictStr, NoNul, Field(max_length=8000)]


class ChatMessageIn(_Strict):
    """One chat message in the OpenAI chat-completions shape."""

    role: Role
    content: Annotated[StrictStr, NoNul, Field(max_length=MAX_MESSAGE_CHARS)]
    name: Annotated[StrictStr, NoNul, Field(max_length=128)] | None = None
    id: Annotated[StrictStr, NoNul, Field(min_length=1, max_length=128)] | None = None
    timestamp: Float | None = None
    topic_change: Bool = Field(
        default=False,
        description="this message starts a new topic: the window before it is summarised (context)",
    )
    phase: Annotated[StrictStr, NoNul, Field(min_length=1, max_length=128)] | None = Field(
        default=None, description="the phase of work the message belongs to (compress)"
    )

    def to_chat(self) -> ChatMessage:
        """The service's message."""
        return ChatMessage(
            self.role,
            self.content,
            name=self.name,
            id=self.id,
            timestamp=self.timestamp,
            topic_change=self.topic_change,
            phase=self.phase,
        )


class ScoreMessagesIn(_Strict):
    """Messages to score against a task."""

    messages: Annotated[list[ChatMessageIn], Field(min_length=1, max_length=MAX_MESSAGES)]
    task_context: TaskContext = ""
    task_type: TaskTypeName | None = Field(
        default=None, description="default, refactor, debugging, requirements (or 代码重构 …)"
    )
    conversation_id: ConversationId | None = Field(
        default=None, description="persist the scores (and reuse LLM answers) under this id"
    )
    background: Bool | None = Field(
        default=None,
        description="with an LLM: answer with rule scores now, let the LLM score the uncertain "
        "messages afterwards for the next request (default MESSAGE_SCORE_BACKGROUND)",
    )
    current_phase: Annotated[StrictStr, NoNul, Field(min_length=1, max_length=128)] | None = Field(
        default=None,
        description="the phase of work in progress: named in the LLM's prompt; in compress, "
        "messages of earlier phases are condensed (seed 000)",
    )


class CompressMessagesIn(ScoreMessagesIn):
    """Messages to compress to a target count and/or a token budget (one is needed)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "anyOf": [{"required": ["target_count"]}, {"required": ["budget_tokens"]}]
        },
    )

    target_count: Annotated[Int, Field(ge=1, le=MAX_MESSAGES)] | None = None
    budget_tokens: Annotated[Int, Field(ge=1, le=10_000_000)] | None = None
    preserve_recent: Annotated[Int, Field(ge=0, le=MAX_MESSAGES)] | None = None

    @model_validator(mode="after")
    def _has_a_target(self) -> CompressMessagesIn:
        if self.target_count is None and self.budget_tokens is None:
            raise ValueError("give target_count or budget_tokens")
        return self


class MessageScoreOut(BaseModel):
    """One message's importance (0-10, seed 000's scale) and how it was reached:
    ``score = clamp(content + recency_bonus, 0, 10)``, where content is ``rule_score``, or
    ``confidence · rule_score + (1 − confidence) · llm_score`` once the LLM answered."""

    index: int
    id: str | None
    score: float
    rule_kind: str = Field(description="the rule that decided rule_score (default: none did)")
    rule_score: float = Field(description="the rule layer's score, 0-10")
    llm_score: float | None = Field(description="the LLM's score, 0-10, when it was asked")
    recency_bonus: float = Field(description="seed TimeDecayScorer: up to +1.0 for the newest")
    dimensions: dict[str, float]
    confidence: float = Field(description="the rule layer's confidence in rule_score")
    method: Literal["rule", "llm", "cache"]
    pending: bool = Field(
        default=False, description="the LLM will score this message in the background"
    )
    rules: list[str]
    reason: str | None


class ScoresOut(BaseModel):
    """A score per message, in message order."""

    task_type: str
    scores: list[MessageScoreOut]


class DroppedOut(BaseModel):
    """A message compression left out."""

    index: int
    score: float


class PhaseOut(BaseModel):
    """An earlier phase condensed by the phase switch (seed 000)."""

    phase: str
    kept: list[int] = Field(description="its messages that scored at least PHASE_KEEP_SCORE")
    summarized: list[int] = Field(description="its messages folded into the phase_summary")
    method: Literal["llm", "extractive"] | None = Field(
        description="who wrote the summary; null when every message was kept"
    )


class CompressOut(BaseModel):
    """The kept messages in their order, what was dropped, and the rate (kept / all)."""

    messages: list[dict[str, Any]]
    kept: list[int]
    dropped: list[DroppedOut]
    compression_rate: float
    original_tokens: int
    kept_tokens: int
    target_exceeded_by: int = Field(
        description="messages kept beyond target_count because preserve_recent forces them"
    )
    pending: list[int] = Field(
        description="messages the LLM scores in the background, for the next request"
    )
    phases: list[PhaseOut] = Field(
        description="earlier phases condensed: their best messages kept, the rest in a "
        "phase_summary message placed after them"
    )
    note: str | None = Field(default=None, description="why the target was exceeded, if it was")


class StoredScoreOut(BaseModel):
    """A persisted message score."""

    message_index: int
    message_id: str | None
    role: str
    content_hash: str
    task_type: str
    score: float
    dimensions: dict[str, float]
    confidence: float
    method: str
    reason: str | None
    llm_score: float | None
    scored_at: datetime


class StoredScoresOut(BaseModel):
    """A page of a conversation's scores; pass ``next_cursor`` as ``after`` for more."""

    conversation_id: str
    items: list[StoredScoreOut]
    next_cursor: int | None


class CompressionOut(BaseModel):
    """One recorded compression."""

    id: int
    created_at: datetime
    from_count: int
    to_count: int
    from_tokens: int
    to_tokens: int
    compression_rate: float
    target_count: int | None
    budget_tokens: int | None
    preserve_recent: int
    kept: list[int]
    dropped: list[int]
