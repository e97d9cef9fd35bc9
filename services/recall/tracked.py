"""A recall as a chat turn sends it: ranked in a reader, counted in a short write.

``RecallService.recall_memories(track=True)`` ranks and counts in its caller's unit of
work. On SQLite that unit of work holds the single write lock from its first statement
(services/core/db.py), so for the whole recall (20-70 ms at 10k memories) every other recall
and add waits: under the bench's 64-client load recalls queued for seconds and a few
gave up on the lock. Here the ranking runs in a reader (``Database.reader``: a
snapshot, no lock) and only the counting (``RecallService.track_hits``: recall_count + 1
and the hits' rescoring, a few milliseconds) takes the lock, in a unit of work of its own.

What changes for the caller: the counting is a transaction of its own, after the ranking,
so a memory deleted in between is counted by nobody and left out of the answer. On
PostgreSQL, where readers never queued, the counting is one statement run in autocommit
(``Database.one_statement``), so the split costs no BEGIN/COMMIT either.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy.ext.asyncio import AsyncSession

from services.core.db import Database
from services.recall.ranking.rerank import RerankMode
from services.recall.recall_service import RecallHit, RecallService


async def recall_and_track(
    db: Database,
    service_for: Callable[[AsyncSession], RecallService],
    user_id: str,
    query: str,
    top_k: int,
    *,
    explain: bool = False,
    track: bool = True,
    types: Sequence[str] = (),
    include_superseded: bool = False,
    rerank_mode: RerankMode | None = None,
    min_confidence: float | None = None,
    time_zone: str | None = None,
) -> list[RecallHit]:
    """``recall_memories`` with the ranking in a reader and the counting after it (of
    the hits ``RecallService.counts``)."""
    async with db.reader() as session:
        hits = await service_for(session).recall_memories(
            user_id,
            query,
            top_k,
            explain=explain,
            track=False,
            types=types,
            include_superseded=include_superseded,
            rerank_mode=rerank_mode,
            min_confidence=min_confidence,
            time_zone=time_zone,
        )
    if not track or not hits:
        return hits
    async with db.one_statement() as session:
        return await service_for(session).track_hits(user_id, hits)
