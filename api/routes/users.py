"""Erase a person: everything the service holds of one user."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from api.deps import SessionDep, StateDep, UserId
from api.errors import error_responses
from api.schemas.users import ErasedCountsOut, ErasedOut
from services.access.erasure import Erased, PersonEraser

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


@router.delete("/{user_id}", responses=error_responses(422))
async def erase_user(user_id: UserId, eraser: EraserDep) -> ErasedOut:
    """Erase a person: their memories and everything derived from them (vectors, index
    and term statistics, links, score history), their conversations' message scores and
    compressions, their job runs, their row, and the API keys bound to exactly them, in
    one transaction. Idempotent: a second call answers 200 with every count 0. Scoped
    like every route: a ``prefix:`` key erases only users it reaches (403 otherwise).
    Deleted rows of PostgreSQL stay in its files until VACUUM (docs/api.md)."""
    return erased_out(await eraser.erase(user_id))
