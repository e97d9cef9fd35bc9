"""Remember, list, read, edit, forget and link a user's memories."""

from __future__ import annotations

from fastapi import APIRouter, Response, status

from api.deps import MemoryId, MemoryServiceDep, UserId
from api.errors import error_responses
from api.presenters import link_out, memory_out
from api.routes.listing import ListQueryDep, list_page
from api.schemas.memories import (
    BatchOut,
    LinkIn,
    LinkOut,
    MemoryBatchIn,
    MemoryIn,
    MemoryOut,
    MemoryPageOut,
    MemoryPatch,
    SupersedeIn,
)
from services.core.pacing import paced
from services.remembering.memory_service import MemoryChanges, NewMemory

router = APIRouter(prefix="/v1/users/{user_id}/memories", tags=["memories"])


def _new(item: MemoryIn) -> NewMemory:
    return NewMemory(
        content=item.content,
        memory_type=item.memory_type,
        source=item.source,
        metadata=item.metadata,
        emotion_tags=item.emotion_tags,
        created_at=item.created_at,
        conversation_id=item.conversation_id,
        role=item.role,
    )


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    responses={
        200: {"model": MemoryOut, "description": "Merged into an existing memory"},
        **error_responses(422),
    },
)
async def create_memory(
    user_id: UserId, body: MemoryIn, service: MemoryServiceDep, response: Response
) -> MemoryOut:
    """Remember a statement. Saying the same thing again merges (200, ``merged: true``)."""
    stored = await service.add(user_id, _new(body))
    if stored.merged:
        response.status_code = status.HTTP_200_OK
    return memory_out(stored.memory, merged=stored.merged)


@router.post("/batch", response_model=BatchOut, responses=error_responses(422))
async def create_memories(
    user_id: UserId, body: MemoryBatchIn, service: MemoryServiceDep
) -> Response:
    """Remember up to 1,000 statements in order, all or nothing."""
    stored = await service.add_many(user_id, [_new(i) for i in body.items])
    merged = sum(1 for s in stored if s.merged)
    out = BatchOut(
        # Paced: a thousand memories shaped in one stretch held the event loop.
        items=[memory_out(s.memory, merged=s.merged) async for s in paced(stored)],
        created=len(stored) - merged,
        merged=merged,
    )
    # Serialised once, here: FastAPI would dump the model, validate it again and encode
    # it, tens of milliseconds of the loop for a thousand memories.
    return Response(out.model_dump_json(), media_type="application/json")


@router.get("", responses=error_responses(422))
async def list_memories(
    user_id: UserId, service: MemoryServiceDep, query: ListQueryDep
) -> MemoryPageOut:
    """A page of memories, most important (``order=importance``) or newest first."""
    return await list_page(user_id, service, query)


@router.get("/{memory_id}", responses=error_responses(404, 422))
async def get_memory(user_id: UserId, memory_id: MemoryId, service: MemoryServiceDep) -> MemoryOut:
    """One memory with its scores."""
    return memory_out(await service.get(user_id, memory_id))


@router.patch("/{memory_id}", responses=error_responses(404, 409, 422))
async def update_memory(
    user_id: UserId, memory_id: MemoryId, body: MemoryPatch, service: MemoryServiceDep
) -> MemoryOut:
    """Edit a memory; new content is re-analysed and rescored."""
    changes = MemoryChanges(
        content=body.content,
        memory_type=body.memory_type,
        source=body.source,
        metadata=body.metadata,
        emotion_tags=body.emotion_tags,
    )
    return memory_out(await service.update(user_id, memory_id, changes))


@router.delete(
    "/{memory_id}", status_code=status.HTTP_204_NO_CONTENT, responses=error_responses(404, 422)
)
async def delete_memory(user_id: UserId, memory_id: MemoryId, service: MemoryServiceDep) -> None:
    """Forget a memory and its links."""
    await service.delete(user_id, memory_id)


@router.post(
    "/{memory_id}/links",
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(404, 422),
)
async def link_memories(
    user_id: UserId, memory_id: MemoryId, body: LinkIn, service: MemoryServiceDep
) -> LinkOut:
    """Link two memories of the same user; both gain impact."""
    return link_out(await service.link(user_id, memory_id, body.target_id, body.weight))


@router.get("/{memory_id}/links", responses=error_responses(404, 422))
async def list_links(
    user_id: UserId, memory_id: MemoryId, service: MemoryServiceDep
) -> list[LinkOut]:
    """Every link of one memory (topic and explicit)."""
    return [link_out(link) for link in await service.links_of(user_id, memory_id)]


@router.post("/{memory_id}/supersede", responses=error_responses(404, 409, 422))
async def supersede_memory(
    user_id: UserId, memory_id: MemoryId, body: SupersedeIn, service: MemoryServiceDep
) -> MemoryOut:
    """Mark this memory as replaced by the newer memory ``by`` (fact correction).

    It stays stored (admin, ``include_superseded``) but leaves recall and the default
    listing. 404 when either memory is not this user's; 422 ``invalid_input`` for itself;
    409 ``supersede_cycle`` when ``by`` is (indirectly) superseded by this memory.
    """
    return memory_out(await service.supersede(user_id, memory_id, body.by))


@router.post("/{memory_id}/restore", responses=error_responses(404, 409, 422))
async def restore_memory(
    user_id: UserId, memory_id: MemoryId, service: MemoryServiceDep
) -> MemoryOut:
    """Undo a supersede: the memory is current again (409 ``not_superseded`` if it was)."""
    return memory_out(await service.restore(user_id, memory_id))
