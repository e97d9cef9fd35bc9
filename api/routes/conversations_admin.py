"""Operator views of a user's conversation's persisted message scores and compressions."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from api.auth import require_admin_key
from api.deps import MessageScoringDep, UserId
from api.errors import error_responses
from api.schemas.messages import CompressionOut, StoredScoreOut, StoredScoresOut
from services.core.validation import USER_ID_PATTERN

router = APIRouter(
    prefix="/admin/users/{user_id}/conversations",
    tags=["admin"],
    dependencies=[Depends(require_admin_key)],
    responses=error_responses(401, 403, 422),
)
ConversationPath = Annotated[str, Path(pattern=USER_ID_PATTERN)]


@router.get("/{conversation_id}/message-scores")
async def message_scores(
    user_id: UserId,
    conversation_id: ConversationPath,
    service: MessageScoringDep,
    limit: Annotated[int, Query(ge=1, le=1000)] = 200,
    after: Annotated[int, Query(ge=-1, le=2**31 - 1)] = -1,
) -> StoredScoresOut:
    """Scores in message order with their dimensions, method and time; ``after`` pages."""
    rows = await service.conversation_scores(
        user_id, conversation_id, limit=limit + 1, after_index=after
    )
    page = rows[:limit]
    return StoredScoresOut(
        conversation_id=conversation_id,
        items=[
            StoredScoreOut(
                message_index=r.message_index,
                message_id=r.message_id,
                role=r.role,
                content_hash=r.content_hash,
                task_type=r.task_type,
                score=r.total,
                dimensions=r.dimensions,
                confidence=r.confidence,
                method=r.method,
                reason=r.reason,
                llm_score=r.llm_score,
                scored_at=r.scored_at,
            )
            for r in page
        ],
        next_cursor=page[-1].message_index if len(rows) > limit else None,
    )


@router.get("/{conversation_id}/compressions")
async def compressions(
    user_id: UserId,
    conversation_id: ConversationPath,
    service: MessageScoringDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 50,
) -> list[CompressionOut]:
    """Compression runs of the conversation, newest first."""
    rows = await service.compressions(user_id, conversation_id, limit=limit)
    return [CompressionOut.model_validate(r, from_attributes=True) for r in rows]
