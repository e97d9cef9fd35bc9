"""The evals' embedding step: the backfill job for one user, as the server's scheduler
would run it after the writes, failing loudly (numbers without the vectors would mislead)."""

from __future__ import annotations

from services.core.clock import Clock
from services.core.db import Database
from services.core.settings import Settings
from services.embeddings.jobs import run_embedding_backfill
from services.embeddings.service import Embeddings


async def embed_user(
    db: Database, settings: Settings, clock: Clock, embeddings: Embeddings, user_id: str
) -> int:
    """Embed every memory of ``user_id`` that lacks a vector; how many were embedded."""
    done = await run_embedding_backfill(
        db, settings, clock, embeddings, user_id=user_id, trigger="eval"
    )
    if done.status != "succeeded":
        raise RuntimeError(f"embedding the memories of {user_id} failed: {done.error}")
    return done.rows
