"""Recall and escalations: what the assistant should bring up."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter

from api.deps import (
    MemoryId,
    MemoryServiceDep,
    SessionDep,
    StateDep,
    UserId,
    get_recall_service,
)
from api.errors import error_responses
from api.presenters import memory_out
from api.schemas.memories import MemoryOut
from api.schemas.recall import (
    EvidenceOut,
    ExplanationOut,
    RecallHitOut,
    RecallIn,
    RecallOut,
    UsedIn,
    UsedOut,
)
from services.recall.recall_service import RecallHit
from services.recall.sufficiency import sufficiency
from services.recall.tracked import recall_and_track

router = APIRouter(prefix="/v1/users/{user_id}", tags=["recall"])


@router.post("/recall", responses=error_responses(422, 429))
async def recall(user_id: UserId, body: RecallIn, state: StateDep) -> RecallOut:
    """The memories that matter most for ``query``, best first.

    Ranked by named signals (lexical, phrase, importance, temporal, recency, session
    continuity, semantic) fused with weights for the query's type (see settings), then
    MMR for variety. ``explain`` adds the query type and every signal's and component's
    contribution; ``track=false`` leaves the recall counts alone. Memories a newer fact
    superseded are left out unless ``include_superseded`` (they carry ``superseded_by_id``);
    left out, the best of those matching the query lend their score to the memory that
    replaced them (``explain``: ``relevance.superseded_match``).

    Only hits with query-dependent evidence come back for a non-empty query (words,
    phrase, time, urgency/feeling or semantic similarity of their own, or a neighbour in
    the same conversation as such a hit: ``evidence.context_of``), and none below
    ``min_confidence``: the answer may hold fewer than ``top_k`` results, or none. Each
    has a calibrated ``confidence``; ``sufficient`` and ``coverage`` say whether private
    memory is enough to answer (seed 001 §1.2).

    ``track`` (default true) counts (recall_count + 1, rescored) only the hits with
    evidence of their own and confidence at least RECALL_COUNT_MIN_CONFIDENCE
    (``counted``). A frontend that knows which memories its answer used should recall
    with ``track: false`` and report them to ``POST …/memories/used`` instead.

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
        min_confidence=body.min_confidence,
        time_zone=body.time_zone,
    )
    verdict = sufficiency(
        [h.evidence for h in hits],
        [h.confidence for h in hits],
        state.settings,
        asked=bool(body.query.strip()),
    )
    return RecallOut(
        results=[hit_out(h) for h in hits],
        sufficient=verdict.sufficient,
        coverage=verdict.coverage,
    )


def hit_out(h: RecallHit) -> RecallHitOut:
    """The public view of one recall hit."""
    return RecallHitOut(
        memory=memory_out(h.memory),
        score=h.score,
        relevance=h.relevance,
        importance=h.importance,
        confidence=h.confidence,
        evidence=EvidenceOut.model_validate(h.evidence.as_dict()) if h.evidence else None,
        counted=h.counted,
        explanation=ExplanationOut.model_validate(h.explanation) if h.explanation else None,
    )


@router.post("/memories/used", responses=error_responses(404, 422))
async def used(user_id: UserId, body: UsedIn, state: StateDep, session: SessionDep) -> UsedOut:
    """Say which recalled memories the answer actually used: each counts as recalled
    once (recall_count + 1, rescored, which may escalate it), however often it is named.
    All or nothing: an id that is not one of this user's memories (another user's looks
    the same) refuses the call with 404 ``memory_not_found`` naming them, and nothing is
    counted. Use it with recalls made with ``track: false``; with ``track`` on, the
    confident hits were counted already."""
    memories = await get_recall_service(state, session).mark_used(user_id, body.ids)
    return UsedOut(counted=[m.id for m in memories], memories=[memory_out(m) for m in memories])


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
