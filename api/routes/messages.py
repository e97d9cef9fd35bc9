"""Score a user's conversation's messages by importance, and compress it (seed 000).

The routes live under the user: a ``conversation_id`` names a conversation within that
user's data. The global ``/v1/messages/...`` routes of earlier versions
stored every caller's conversations in one namespace; they answer 410 (api/routes/moved.py).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from api.deps import MessageScoringDep, UserId
from api.errors import error_responses
from api.schemas.messages import (
    CompressMessagesIn,
    CompressOut,
    DroppedOut,
    MessageScoreOut,
    PhaseOut,
    ScoreMessagesIn,
    ScoresOut,
)
from services.context.importance.message_score import MessageScore
from services.context.importance.service import Conversation
from services.context.shared.messages import ChatMessage

router = APIRouter(prefix="/v1/users/{user_id}/messages", tags=["messages"])


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


def _kept_out(body: CompressMessagesIn, message: ChatMessage, index: int | None) -> dict[str, Any]:
    """A kept message as the caller sent it, or a phase's summary as written."""
    if index is not None:
        return body.messages[index].model_dump(exclude_none=True, exclude_defaults=True)
    return {
        "role": message.role,
        "name": message.name,
        "content": message.content,
        "phase": message.phase,
    }


@router.post("/score", responses=error_responses(422))
async def score_messages(
    user_id: UserId, body: ScoreMessagesIn, service: MessageScoringDep
) -> ScoresOut:
    """A 0-10 importance per message with its five dimensions, confidence and method."""
    conversation = _conversation(body)
    scores = await service.score(user_id, conversation)
    task_type = service.scorer.task(body.task_context, body.task_type).task_type
    return ScoresOut(task_type=task_type, scores=[_score_out(s) for s in scores])


@router.post("/compress", responses=error_responses(422))
async def compress_messages(
    user_id: UserId, body: CompressMessagesIn, service: MessageScoringDep
) -> CompressOut:
    """Keep system messages, the most recent ``preserve_recent``, then the best-scored
    messages that fit ``target_count`` and/or ``budget_tokens``; order is preserved."""
    compressed = await service.compress(
        user_id,
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
            _kept_out(body, message, index)
            for message, index in zip(compressed.messages, compressed.origin, strict=True)
        ],
        kept=result.kept,
        dropped=[DroppedOut(index=i, score=scores[i].total) for i in result.dropped],
        compression_rate=result.compression_rate,
        original_tokens=result.original_tokens,
        kept_tokens=result.kept_tokens,
        target_exceeded_by=result.target_exceeded_by,
        pending=[s.index for s in scores if s.pending],
        phases=[
            PhaseOut(
                phase=p.phase,
                kept=p.kept,
                summarized=p.summarized,
                method="llm" if p.method == "llm" else "extractive" if p.method else None,
            )
            for p in compressed.phases
            if p.summarized or p.kept
        ],
        note=note,
    )
