"""A person's data: erase, export and import everything the service holds of one user."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request, status
from fastapi.responses import StreamingResponse

from api.bounded_body import read_bounded
from api.deps import SessionDep, StateDep, UserId, ensure_schema_ready
from api.errors import error_responses
from api.schemas.users import (
    ErasedCountsOut,
    ErasedOut,
    ImportedCountsOut,
    ImportedOut,
    PersonOut,
    PersonPatch,
)
from services.access.erasure import Erased, PersonEraser
from services.access.person_document import MEDIA_TYPE

router = APIRouter(prefix="/v1/users", tags=["users"])


async def _eraser(state: StateDep, session: SessionDep) -> PersonEraser:
    return state.erasure(session)


EraserDep = Annotated[PersonEraser, Depends(_eraser)]


def erased_out(erased: Erased) -> ErasedOut:
    """The response body of an erasure."""
    return ErasedOut(
        user_id=erased.user_id,
        erased=ErasedCountsOut(**erased.counts),
        total=erased.total,
    )


@router.get("/{user_id}", responses=error_responses(422))
async def get_person(user_id: UserId, state: StateDep, session: SessionDep) -> PersonOut:
    """A person's settings: ``time_zone``, the IANA zone their days are counted in
    ("yesterday" in a recall, a memory's date in a context), null for UTC. Someone the
    service has not met has the defaults."""
    found = await state.person_settings(session).get(user_id)
    return PersonOut(user_id=found.user_id, time_zone=found.time_zone)


@router.patch("/{user_id}", responses=error_responses(422))
async def patch_person(
    user_id: UserId, body: PersonPatch, state: StateDep, session: SessionDep
) -> PersonOut:
    """Change a person's settings: ``time_zone`` (an IANA name this server's zone
    database knows, else 422 ``invalid_input``; null: back to UTC). An omitted field
    stays as it is."""
    service = state.person_settings(session)
    if "time_zone" in body.model_fields_set:
        found = await service.set_time_zone(user_id, body.time_zone)
    else:
        found = await service.get(user_id)
    return PersonOut(user_id=found.user_id, time_zone=found.time_zone)


@router.delete("/{user_id}", responses=error_responses(422))
async def erase_user(user_id: UserId, eraser: EraserDep) -> ErasedOut:
    """Erase a person: their memories and everything derived from them (vectors, index
    and term statistics, links, score history), their conversations' message scores and
    compressions, their job runs, their row, and the API keys bound to exactly them, in
    one transaction. Idempotent: a second call answers 200 with every count 0. Scoped
    like every route: a ``prefix:`` key erases only users it reaches (403 otherwise).
    Deleted rows of PostgreSQL stay in its files until VACUUM (docs/api.md)."""
    return erased_out(await eraser.erase(user_id))


_EXPORT: dict[int | str, dict[str, Any]] = {
    200: {
        "content": {MEDIA_TYPE: {"schema": {"type": "string"}}},
        "description": "JSON Lines: header, person, memories, links, message scores, "
        "compressions, end (docs/api.md, docs/person-export.schema.json)",
    }
}


@router.get("/{user_id}/export", response_class=StreamingResponse, responses=_EXPORT)
async def export_user(user_id: UserId, state: StateDep) -> StreamingResponse:
    """Export a person: every memory with its text, type, role, metadata, conversation,
    times, counts, emotion tags, topics, scores and their components, score history,
    fact slot and supersession, and vector; the links between them; their message scores
    and compressions. Streamed as JSON Lines from one snapshot of the database. The last
    line (``kind: end``) counts the others: a stream that broke off has none, and an
    import refuses it. Someone the service does not know gets an export holding nothing.
    Scoped like every route (a ``prefix:`` key exports only users it reaches)."""
    await ensure_schema_ready(state)
    return StreamingResponse(
        state.exporter().lines(user_id),
        media_type=MEDIA_TYPE,
        headers={"Content-Disposition": f'attachment; filename="{user_id}.jsonl"'},
    )


_IMPORT_BODY = {
    "requestBody": {
        "required": True,
        "content": {MEDIA_TYPE: {"schema": {"type": "string"}}},
        "description": "an export made by GET /v1/users/{user_id}/export",
    }
}


@router.post(
    "/{user_id}/import",
    status_code=status.HTTP_201_CREATED,
    responses=error_responses(409, 413, 422),
    openapi_extra=_IMPORT_BODY,
)
async def import_user(
    user_id: UserId, request: Request, state: StateDep, session: SessionDep
) -> ImportedOut:
    """Import an export as this person's data, all or nothing: 422 ``invalid_export``
    (with the line at fault) for a document that is not a whole export of this format
    version, 409 ``user_not_empty`` for a person who already has memories; either way
    nothing is written; 413 ``too_large`` for a body over IMPORT_MAX_BYTES (import it with
    ``jarvis-memory users import`` instead). The memories keep their times, counts and
    scores; the search index is rebuilt from their texts. The user id may differ from the
    exported one."""
    limit = state.settings.import_max_bytes
    refusal = (
        f"the export is over IMPORT_MAX_BYTES ({limit} bytes): import it on the server with "
        "jarvis-memory users import USER FILE, or raise the setting"
    )
    body = await read_bounded(request, limit, refusal)
    imported = await state.importer(session).import_lines(user_id, body.splitlines())
    return ImportedOut(user_id=imported.user_id, imported=ImportedCountsOut(**imported.counts))
