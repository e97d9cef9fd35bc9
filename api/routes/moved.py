"""Routes that were removed because they were unsafe: each answers 410 naming its successor.

``/v1/messages/score`` and ``/compress`` kept every caller's conversations in one
namespace, so one caller's ``conversation_id`` could overwrite another's scores and
history; ``/admin/conversations/...`` read that namespace. Their successors
live under the user. A 410 with the new path tells an old client what to change instead
of a 404 that looks like a typo; the routes are left out of the OpenAPI document.
"""

from __future__ import annotations

from fastapi import APIRouter

from services.core.errors import Gone

router = APIRouter(include_in_schema=False)


def _gone(new_path: str) -> Gone:
    return Gone(f"this route was removed (conversations belong to a user now): use {new_path}")


@router.post("/v1/messages/score")
async def score_moved() -> None:
    """Removed: ``POST /v1/users/{user_id}/messages/score``."""
    raise _gone("POST /v1/users/{user_id}/messages/score")


@router.post("/v1/messages/compress")
async def compress_moved() -> None:
    """Removed: ``POST /v1/users/{user_id}/messages/compress``."""
    raise _gone("POST /v1/users/{user_id}/messages/compress")


@router.get("/admin/conversations/{conversation_id}/message-scores")
async def scores_moved(conversation_id: str) -> None:
    """Removed: the user's admin view."""
    del conversation_id
    raise _gone("GET /admin/users/{user_id}/conversations/{conversation_id}/message-scores")


@router.get("/admin/conversations/{conversation_id}/compressions")
async def compressions_moved(conversation_id: str) -> None:
    """Removed: the user's admin view."""
    del conversation_id
    raise _gone("GET /admin/users/{user_id}/conversations/{conversation_id}/compressions")
