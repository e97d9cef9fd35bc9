"""Every tunable of the service, read from the environment (and a ``.env`` file).

Settings are built by the edges (app factory, CLI, tests) and passed down; nothing
constructs them at import time.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_SQLITE_PATH = Path("data") / "jarvis_memory.db"


def _split_keys(value: object) -> object:
    if isinstance(value, str):
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


class Settings(BaseSettings):
    """Service configuration. Names map to upper-case environment variables."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    database_url: str = Field(
        default=f"sqlite+aiosqlite:///{DEFAULT_SQLITE_PATH.as_posix()}",
        description="SQLAlchemy async URL; PostgreSQL via postgresql+asyncpg://",
    )
    db_pool_size: int = 10
    db_echo: bool = False

    # Auth: comma-separated bearer keys. None configured = auth off (loopback only).
    jarvis_api_keys: Annotated[list[str], NoDecode] = Field(default_factory=list)
    jarvis_admin_keys: Annotated[list[str], NoDecode] = Field(default_factory=list)

    # Scheduler (seed 002: scores kept fresh by a scheduled job).
    scheduler_enabled: bool = True
    rescore_interval: int = Field(default=3600, ge=1, description="seconds between rescoring runs")
    rescore_batch_size: int = Field(default=5000, ge=1)
    rescore_recount_links: bool = False

    # Importance scorer, seed 002 §2-§3.
    weight_frequency: float = 0.35
    weight_recency: float = 0.20
    weight_emotion: float = 0.25
    weight_impact: float = 0.20
    frequency_threshold: float = 3.0
    frequency_half_life_days: float = 7.0
    recency_half_life_days: float = 30.0
    emotion_recency_floor: float = 0.7
    emotion_floor_min_weight: float = 0.5
    impact_threshold: float = 5.0
    level_high: float = 0.7
    level_medium: float = 0.4
    score_history_min_delta: float = 0.02
    explicit_emotion_tag_weight: float = 0.5

    # Recall: blend of lexical relevance and importance (issue 2).
    recall_relevance_weight: float = 0.7
    recall_importance_weight: float = 0.3
    recall_candidates: int = Field(default=200, ge=10)
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    bigram_weight: float = 0.5
    char_weight: float = 0.3

    # Frequency tracker: near-duplicates merge into the existing memory.
    near_duplicate_threshold: float = 0.85

    # Impact evaluator: how many topic links one new memory may create. Twice the impact
    # threshold: links beyond saturation change no score, only the write volume.
    topic_links_per_memory: int = Field(default=10, ge=1)
    topics_per_memory: int = 5

    # Context assembly (issue 4): token estimation, seed 001 §2.2.
    token_estimator: Literal["heuristic", "tiktoken", "auto"] = Field(
        default="auto",
        description="auto: tiktoken when installed and its encoding cached, else the heuristic",
    )

    # Optional LLM for context features: any OpenAI-compatible chat-completions endpoint.
    # Off while llm_base_url is unset; failures fall back to the rule layer.
    llm_base_url: str | None = Field(default=None, description="e.g. https://api.minimaxi.com/v1")
    llm_model: str = "MiniMax-M2"
    llm_api_key: str | None = None
    llm_timeout: float = Field(default=10.0, gt=0, description="seconds per LLM call")

    # Message importance scoring, seed 000.
    message_score_llm_threshold: float = Field(default=0.7, ge=0, le=1)
    message_score_llm_batch: int = Field(default=50, ge=1, le=500)
    message_score_cache_size: int = Field(default=10_000, ge=0)
    compress_preserve_recent: int = Field(default=3, ge=0)

    @field_validator("jarvis_api_keys", "jarvis_admin_keys", mode="before")
    @classmethod
    def _parse_keys(cls, value: object) -> object:
        return _split_keys(value)

    @property
    def auth_enabled(self) -> bool:
        """Auth is on as soon as any key, service or admin, is configured."""
        return bool(self.jarvis_api_keys or self.jarvis_admin_keys)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
