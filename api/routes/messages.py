"""Score a conversation's messages by importance, and compress it (seed 000)."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import MessageScoringDep
from api.errors import error_responses
from api.schemas.messages import (
    CompressMessagesIn,
    CompressOut,
    DroppedOut,
    MessageScoreOut,
    ScoreMessagesIn,
    ScoresOut,
)
from services.context.message_scoring_service import Conversation
from services.context.scores import MessageScore

router = APIRouter(prefix="/v1/messages", tags=["messages"])


def _conversation(body: ScoreMessagesIn) -> Conversation:
    return Conversation(
        messages=[m.to_chat() for m in body.messages],
        task_context=body.task_context,
        task_type=body.task_type,
        conversation_id=body.conversation_id,
        background=body.background,
        current_phase=body.current_phase,
    )


def _score_out(score: MessageScore) -> MessageScoreOut:
    return MessageScoreOut(
        index=score.index,
        id=score.message_id,
        score=score.total,
        rule_kind=score.rule_kind,
        rule_score=score.rule_score,
        llm_score=score.llm_score,
        recency_bonus=score.recency_bonus,
        dimensions=dict(score.dimensions),
        confidence=score.confidence,
        method=score.method,
        pending=score.pending,
        rules=list(score.rules),
        reason=score.reason,
    )


@router.post("/score", responses=error_responses(422))
async def score_messages(body: ScoreMessagesIn, service: MessageScoringDep) -> ScoresOut:
    """A 0-10 importance per message with its five dimensions, confidence and method."""
    conversation = _conversation(body)
    scores = await service.score(conversation)
    task_type = service.scorer.task(body.task_context, body.task_type).task_type
    return ScoresOut(task_type=task_type, scores=[_score_out(s) for s in scores])


@router.post("/compress", responses=error_responses(422))
async def compress_messages(body: CompressMessagesIn, service: MessageScoringDep) -> CompressOut:
    """Keep system messages, the most recent ``preserve_recent``, then the best-scored
    messages that fit ``target_count`` and/or ``budget_tokens``; order is preserved."""
    compressed = await service.compress(
        _conversation(body),
        target_count=body.target_count,
        budget_tokens=body.budget_tokens,
        preserve_recent=body.preserve_recent,
    )
    result, scores = compressed.result, compressed.scores
    note = None
    if result.target_exceeded_by:
        note = (
            f"kept {len(result.kept)} messages, {result.target_exceeded_by} over target_count "
            f"{body.target_count}: system messages and the {compressed.preserve_recent} newest "
            "(preserve_recent) are always kept"
        )
    return CompressOut(
        messages=[
            body.messages[i].model_dump(exclude_none=True, exclude_defaults=True)
            for i in result.kept
        ],
        kept=result.kept,
        dropped=[DroppedOut(index=i, score=scores[i].total) for i in result.dropped],
        compression_rate=result.compression_rate,
        original_tokens=result.original_tokens,
        kept_tokens=result.kept_tokens,
        target_exceeded_by=result.target_exceeded_by,
        pending=[s.index for s in scores if s.pending],
        note=note,
    )
