"""Context assembly: the messages to send to the model, private memories first."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import ContextServiceDep, UserId
from api.errors import error_responses
from api.schemas.context import (
    CardOut,
    ContextIn,
    ContextOut,
    DroppedMemoryOut,
    DroppedMessageOut,
    InjectedMemoryOut,
    MemorySummaryOut,
    SectionUsageOut,
    SummaryOut,
    WindowOut,
)
from services.context.assembly.service import ContextRequest
from services.context.shared.messages import ChatMessage

router = APIRouter(prefix="/v1/users/{user_id}", tags=["context"])


def _message_out(message: ChatMessage) -> dict[str, object]:
    out: dict[str, object] = {"role": message.role, "content": message.content}
    for key in ("name", "id", "timestamp", "phase"):
        value = getattr(message, key)
        if value is not None:
            out[key] = value
    if message.topic_change:
        out["topic_change"] = True
    return out


@router.post("/context", responses=error_responses(422, 429))
async def assemble_context(
    user_id: UserId, body: ContextIn, service: ContextServiceDep
) -> ContextOut:
    """The final message list within ``budget_tokens``: system messages, the rolling
    summary (if the history needed one), the kept history, and a ``memory_context`` block of
    the user's relevant memories just before the last user message."""
    request = ContextRequest(
        messages=[m.to_chat() for m in body.messages],
        budget_tokens=body.budget_tokens,
        query=body.query,
        task_context=body.task_context,
        task_type=body.task_type,
        preserve_recent=body.preserve_recent,
        extract_cards=body.extract_cards,
        conversation_id=body.conversation_id,
        enable_memory_injection=body.enable_memory_injection,
        memory_top_k=body.memory_top_k,
        memory_max_tokens=body.memory_max_tokens,
        cursor=body.cursor,
        summarize_memories=body.summarize_memories,
        current_phase=body.current_phase,
    )
    result = await service.assemble(user_id, request)
    summary = result.summary
    return ContextOut(
        messages=[_message_out(m) for m in result.messages],
        memories=[
            InjectedMemoryOut(
                id=m.id,
                memory_type=m.memory_type,
                text=m.text,
                score=m.score,
                importance=m.importance,
                tokens=m.tokens,
                level=m.level,
                summarized=m.summarized,
            )
            for m in result.memories
        ],
        dropped=[DroppedMessageOut(index=d.key, score=d.score) for d in result.dropped_messages],
        dropped_memories=[
            DroppedMemoryOut(id=d.key, score=d.score) for d in result.dropped_memories
        ],
        removed_memory_blocks=result.removed_blocks,
        compressed={str(i): level for i, level in result.compressed.items()},
        summary=(
            None
            if summary is None
            else SummaryOut(
                method="llm" if summary.method == "llm" else "extractive",
                summarized=summary.summarized,
                previous_folded=summary.previous_folded,
                cards=[
                    {"content": c.content, "memory_type": c.memory_type, "tags": list(c.tags)}
                    for c in summary.cards
                ],
            )
        ),
        cards=[CardOut(memory_id=i, merged=merged) for i, merged in result.cards_saved],
        usage={
            section: SectionUsageOut(allocated=u.allocated, used=u.used, percentage=u.percentage)
            for section, u in result.usage.items()
        },
        levels=dict(result.levels),
        query=result.query,
        budget_tokens=result.budget_tokens,
        total_tokens=result.total_tokens,
        compression_rate=result.compression_rate,
        window=(
            None
            if result.trigger is None
            else WindowOut(trigger=result.trigger, start=result.window_start)
        ),
        profile_memories=result.profile_ids,
        memory_summary=(
            None
            if result.memory_summary is None
            else MemorySummaryOut(
                method=result.memory_summary.method,
                text=result.memory_summary.text,
                memory_ids=list(result.memory_summary.memory_ids),
            )
        ),
        next_cursor=result.next_cursor,
        cache=result.cache,
        sufficient=result.sufficient,
        coverage=result.coverage,
    )
