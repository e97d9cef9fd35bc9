"""Request and response bodies of the REST API."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from models import MEMORY_TYPES
from services.ranking.query_types import QueryType
from services.ranking.signals import SIGNALS
from services.validation import (
    MAX_BATCH_ITEMS,
    MAX_CONTENT_CHARS,
    MAX_ID,
    MAX_TOP_K,
    USER_ID_PATTERN,
    check_metadata,
    check_tags,
)

MemoryType = Literal[
    "fact", "preference", "goal", "decision", "constraint", "todo", "event", "code", "other"
]
Level = Literal["high", "medium", "low"]
Metadata = Annotated[dict[str, Any], AfterValidator(check_metadata)]
Tags = Annotated[list[str], AfterValidator(check_tags)]
Content = Annotated[str, Field(min_length=1, max_length=MAX_CONTENT_CHARS, pattern=r"\S")]

assert set(MemoryType.__args__) == set(MEMORY_TYPES)  # type: ignore[attr-defined]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class MemoryIn(_Strict):
    """A statement to remember."""

    content: Content
    memory_type: MemoryType = "other"
    source: Annotated[str, Field(max_length=128)] | None = None
    metadata: Metadata = Field(default_factory=dict)
    emotion_tags: Tags = Field(default_factory=list)
    created_at: datetime | None = Field(
        default=None, description="When it was said (for imports); must carry a timezone."
    )


class MemoryBatchIn(_Strict):
    """Up to 1,000 statements, stored in order in one transaction."""

    items: Annotated[list[MemoryIn], Field(min_length=1, max_length=MAX_BATCH_ITEMS)]


class MemoryPatch(_Strict):
    """Fields to change; omitted fields stay as they are."""

    content: Content | None = None
    memory_type: MemoryType | None = None
    source: Annotated[str, Field(max_length=128)] | None = None
    metadata: Metadata | None = None
    emotion_tags: Tags | None = None


class LinkIn(_Strict):
    """Link this memory to another memory of the same user."""

    target_id: Annotated[int, Field(ge=1, le=MAX_ID)]
    weight: Annotated[float, Field(gt=0, le=100)] = 1.0


class SupersedeIn(_Strict):
    """The newer memory (of the same user) that replaces this one."""

    by: Annotated[int, Field(ge=1, le=MAX_ID)]


class RecallIn(_Strict):
    """What the assistant is about to answer; empty means "what matters most"."""

    query: Annotated[str, Field(max_length=MAX_CONTENT_CHARS)] = ""
    top_k: Annotated[int, Field(ge=1, le=MAX_TOP_K)] = 5
    explain: bool = False
    track: bool = True
    types: list[MemoryType] = Field(default_factory=list)
    include_superseded: bool = Field(
        default=False, description="Also recall memories a newer fact replaced (marked)."
    )


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


QueryTypeName = Literal[
    "temporal",
    "diagnostic",
    "procedural",
    "technical",
    "creative",
    "conceptual",
    "personal",
    "conversational",
    "default",
]
SignalName = Literal[
    "lexical", "phrase", "importance", "temporal", "recency", "continuity", "semantic"
]


assert set(QueryTypeName.__args__) == {t.value for t in QueryType}  # type: ignore[attr-defined]
assert set(SignalName.__args__) == set(SIGNALS)  # type: ignore[attr-defined]


class SignalOut(BaseModel):
    """One signal's value in [0, 1], its weight for the query type and their product."""

    value: float
    weight: float
    contribution: float


class TimeExpressionOut(BaseModel):
    """The time a query names: a UTC span, or a month of any year."""

    text: str
    start: datetime | None
    end: datetime | None
    month_of_any_year: int | None


class ContinuityOut(BaseModel):
    """The strong hit this memory was said next to, and how many memories away."""

    anchor_id: int
    distance: int


class DiversityOut(BaseModel):
    """MMR: λ and the word overlap with the most similar better-placed result."""

    model_config = ConfigDict(populate_by_name=True)

    lambda_: float = Field(alias="lambda")
    max_similarity_to_earlier: float


class RerankOut(BaseModel):
    """The reranker's part (seed 004 §1): ``score = contribution + hybrid_contribution``."""

    relevance: float
    weight: float
    contribution: float
    hybrid_score: float
    hybrid_normalized: float
    hybrid_weight: float
    hybrid_contribution: float


class ExplanationOut(BaseModel):
    """Why a memory came back: the query type and every signal's share of the score.

    The ``signals`` contributions add up to ``score``; ``relevance`` breaks the lexical
    signal into BM25 terms and ``importance`` into its four components (seed 002).
    """

    # Optional providers (a reranker) may add their own sections.
    model_config = ConfigDict(extra="allow")

    mode: Literal["fused", "importance_only"]
    query_type: QueryTypeName | None
    query_type_cue: str | None
    time_expression: TimeExpressionOut | None
    score: float
    signals: dict[SignalName, SignalOut]
    relevance: dict[str, Any]
    importance: dict[str, Any]
    continuity: ContinuityOut | None
    diversity: DiversityOut | None
    rerank: RerankOut | None = None


class RecallHitOut(BaseModel):
    """A recalled memory with the numbers behind its rank."""

    memory: MemoryOut
    score: float
    relevance: float
    importance: float
    explanation: ExplanationOut | None = None


class RecallOut(BaseModel):
    """Best first."""

    results: list[RecallHitOut]


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
    error: str | None


class RescoreIn(_Strict):
    """Run rescoring now, for everyone or one user."""

    user_id: Annotated[str, Field(pattern=USER_ID_PATTERN)] | None = None


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


class ErrorBody(BaseModel):
    """The machine code and a human message."""

    code: str
    message: str
    details: Any = None


class ErrorOut(BaseModel):
    """Every error response has this shape."""

    error: ErrorBody
