"""Recall and escalations: what the assistant should bring up."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter

from api.deps import MemoryId, MemoryServiceDep, StateDep, UserId, get_recall_service
from api.errors import error_responses
from api.presenters import memory_out
from api.schemas.memories import MemoryOut
from api.schemas.recall import ExplanationOut, RecallHitOut, RecallIn, RecallOut
from services.recall.tracked import recall_and_track

router = APIRouter(prefix="/v1/users/{user_id}", tags=["recall"])


@router.post("/recall", responses=error_responses(422))
async def recall(user_id: UserId, body: RecallIn, state: StateDep) -> RecallOut:
    """The memories that matter most for ``query``, best first.

    Ranked by named signals (lexical, phrase, importance, temporal, recency, session
    continuity, semantic) fused with weights for the query's type (see settings), then
    MMR for variety. ``explain`` adds the query type and every signal's and component's
    contribution; ``track=false`` leaves the recall counts alone. Memories a newer fact
    superseded are left out unless ``include_superseded`` (they carry ``superseded_by_id``);
    left out, the best of those matching the query lend their score to the memory that
    replaced them (``explain``: ``relevance.superseded_match``).

    Ranked in a read-only transaction, counted in a short one of its own
    (services/recall/tracked.py), so recalls do not queue for SQLite's write lock.
    """
    hits = await recall_and_track(
        state.db,
        partial(get_recall_service, state),
        user_id,
        body.query,
        body.top_k,
        explain=body.explain,
        track=body.track,
        types=body.types,
        include_superseded=body.include_superseded,
        rerank_mode=body.rerank_mode,
    )
    return RecallOut(
        results=[
            RecallHitOut(
                memory=memory_out(h.memory),
                score=h.score,
                relevance=h.relevance,
                importance=h.importance,
                explanation=(
                    ExplanationOut.model_validate(h.explanation) if h.explanation else None
                ),
            )
            for h in hits
        ]
    )


@router.get("/escalations", responses=error_responses(422))
async def escalations(
    user_id: UserId,
    service: MemoryServiceDep,
    include_acknowledged: bool = False,
    include_superseded: bool = False,
) -> list[MemoryOut]:
    """Memories that crossed into ``high`` ("you mentioned this three times"); superseded
    ones (a newer fact replaced them) only with ``include_superseded``."""
    found = await service.escalations(user_id, include_acknowledged, include_superseded)
    return [memory_out(m) for m in found]


@router.post("/escalations/{memory_id}/ack", responses=error_responses(404, 422))
async def acknowledge(user_id: UserId, memory_id: MemoryId, service: MemoryServiceDep) -> MemoryOut:
    """Mark an escalation as followed up."""
    return memory_out(await service.acknowledge_escalation(user_id, memory_id))
