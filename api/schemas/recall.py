"""Request and response bodies of recall, with its explanation."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

from api.schemas.common import Bool, Float, Int, MemoryType, NoNul, TimeZone, _Strict
from api.schemas.memories import MemoryOut
from services.core.validation import MAX_CONTENT_CHARS, MAX_ID, MAX_TOP_K
from services.recall.ranking.query_types import QueryType
from services.recall.ranking.signals import SIGNALS


class RecallIn(_Strict):
    """What the assistant is about to answer; empty means "what matters most"."""

    query: Annotated[StrictStr, NoNul, Field(max_length=MAX_CONTENT_CHARS)] = ""
    top_k: Annotated[Int, Field(ge=1, le=MAX_TOP_K)] = 5
    explain: Bool = False
    track: Bool = True
    types: list[MemoryType] = Field(default_factory=list)
    include_superseded: Bool = Field(
        default=False, description="Also recall memories a newer fact replaced (marked)."
    )
    rerank_mode: Literal["fast", "balanced", "quality"] | None = Field(
        default=None,
        description="with a reranker configured: fast (10 candidates in batches of 5), "
        "balanced (20 in 10s) or quality (40 in 20s); default RERANK_MODE",
    )
    min_confidence: Annotated[Float, Field(ge=0, le=1)] | None = Field(
        default=None,
        description="leave out hits of lower confidence (default RECALL_MIN_CONFIDENCE); "
        "a recall may return fewer than top_k results, or none",
    )
    time_zone: TimeZone | None = Field(
        default=None,
        description="count the days the query names (yesterday, 上周五) in this IANA zone "
        "instead of the person's own (PATCH /v1/users/{user_id}; UTC when unset)",
    )


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
    "lexical",
    "phrase",
    "importance",
    "temporal",
    "recency",
    "continuity",
    "semantic",
    "cross_lingual",
    "feeling",
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
    mode: Literal["fast", "balanced", "quality"]


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


class QueryDependentOut(BaseModel):
    """What ties the memory to this query (services/recall/evidence.py)."""

    terms: list[str] = Field(description="the query's content terms the memory holds")
    term_coverage: float = Field(description="their idf-weighted share of the query's terms")
    relevance: float = Field(description="BM25 / the best candidate's BM25")
    phrase: float
    time: float = Field(description="fit of when it was said to the query's time (0: none)")
    feeling: float = Field(description="its emotion tags against the query's urgency/feeling")
    semantic: float = Field(description="cosine similarity from the semantic source (0: none)")
    other_language: bool = Field(
        description="the memory is in the other language than the query (Chinese/English): "
        "no word can match, and a similarity counts as evidence from a lower floor"
    )


class QueryIndependentOut(BaseModel):
    """What only ranks the memory, whatever the query."""

    importance: float
    recency: float
    continuity: float


class EvidenceOut(BaseModel):
    """Why the memory is here; ``context_of`` names the hit whose conversation neighbour
    it is when it has no evidence of its own."""

    query_dependent: QueryDependentOut
    query_independent: QueryIndependentOut
    context_of: int | None


class RecallHitOut(BaseModel):
    """A recalled memory with the numbers behind its rank."""

    memory: MemoryOut
    score: float
    relevance: float
    importance: float
    confidence: float | None = Field(
        default=None,
        description="chance in [0, 1] that this is a result the person would accept, from "
        "its query-dependent evidence (0.5: about half such hits were); null for an empty "
        "query",
    )
    evidence: EvidenceOut | None = Field(default=None, description="null for an empty query")
    counted: bool = Field(
        default=False, description="this recall raised its recall_count (track and confident)"
    )
    explanation: ExplanationOut | None = None


class RecallOut(BaseModel):
    """Best first; possibly fewer than ``top_k`` (only hits with evidence come back)."""

    results: list[RecallHitOut]
    sufficient: bool = Field(
        description="seed 001 §1.2: at least SUFFICIENT_MIN_RESULTS results, coverage at "
        "least SUFFICIENT_MIN_COVERAGE and mean confidence at least "
        "SUFFICIENT_MIN_CONFIDENCE; when false, look beyond private memory"
    )
    coverage: float = Field(
        description="share of the query's aspects (its content terms, idf-weighted; its "
        "time; its urgency or feeling) that the results cover together"
    )


class UsedIn(_Strict):
    """The memories an answer used (from a recall with ``track: false``)."""

    ids: Annotated[
        list[Annotated[Int, Field(ge=1, le=MAX_ID)]],
        Field(min_length=1, max_length=MAX_TOP_K * 10, description="each counted once"),
    ]


class UsedOut(BaseModel):
    """The memories counted, as the count left them."""

    counted: list[int]
    memories: list[MemoryOut]
