"""FastAPI dependencies: the request's unit of work and services (auth: api/auth.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Path, Request
from sqlalchemy.ext.asyncio import AsyncSession

from services.composition import Services
from services.context.assembly.service import ContextService
from services.context.importance.service import MessageScoringService
from services.core.errors import NotReady
from services.core.health import check_readiness
from services.core.validation import MAX_ID, USER_ID_PATTERN
from services.recall.recall_service import RecallService
from services.remembering.memory_service import MemoryService


async def get_state(request: Request) -> Services:
    """The application's shared state.

    Every dependency here is ``async def``, though none awaits anything but another:
    FastAPI runs a plain ``def`` dependency in its thread pool, a thread hop per
    dependency per request. A recall paid two (this and the key check), an add three;
    they were 0.3 of the 2.1 ms the in-process HTTP layer added to a recall (py-spy).
    A dependency that blocks would have to stay ``def``.
    """
    state: Services = request.app.state.jarvis
    return state


StateDep = Annotated[Services, Depends(get_state)]


async def ensure_schema_ready(state: Services) -> None:
    """Refuse with 503 ``not_ready`` until the schema is found at head (then never
    checked again): every write of an unmigrated database was a 500 "no such table".
    Every entry point that opens units of work calls this first."""
    if state.schema_ready:
        return
    readiness = await check_readiness(state.db)
    if not readiness.ready:
        raise NotReady(f"the database is not ready: {readiness.database}")
    state.schema_ready = True


async def get_session(state: StateDep) -> AsyncIterator[AsyncSession]:
    """One unit of work per request: commit when the route returns, roll back on any error.

    Declared with ``scope="function"`` (``SessionDep`` below), so the COMMIT runs after
    the route function returns and before the response is sent. A yield dependency's
    default scope (``"request"``) exits only after the response has gone out: the client
    was told 201 for a write another connection could not see yet, and a COMMIT that then
    failed (a busy SQLite, a PostgreSQL serialization failure or deadlock, a full disk)
    lost a write the client believed stored, with no error it could see. With
    the function scope a failed commit raises into the app's error handlers and becomes
    the response: 503 ``database_busy`` for contention, else 500 ``internal_error``.
    tests/api/test_commit_before_answer.py fails if a FastAPI upgrade changes that order.
    """
    await ensure_schema_ready(state)
    async with state.db.unit_of_work() as session:
        yield session


# scope="function": the unit of work commits before the answer leaves (get_session).
SessionDep = Annotated[AsyncSession, Depends(get_session, scope="function")]


async def get_memory_service(state: StateDep, session: SessionDep) -> MemoryService:
    """A MemoryService bound to the request's session."""
    return state.memories(session)


def get_recall_service(state: StateDep, session: SessionDep) -> RecallService:
    """A RecallService bound to ``session`` (a plain function: the recall route builds
    one per unit of work, services/recall/tracked.py)."""
    return state.recall(session)


async def get_message_scoring_service(
    state: StateDep, session: SessionDep
) -> MessageScoringService:
    """A MessageScoringService bound to the request's session."""
    return state.message_scoring(session)


async def get_context_service(state: StateDep, session: SessionDep) -> ContextService:
    """A ContextService bound to the request's session."""
    return state.context(session)


ContextServiceDep = Annotated[ContextService, Depends(get_context_service)]
MessageScoringDep = Annotated[MessageScoringService, Depends(get_message_scoring_service)]
MemoryServiceDep = Annotated[MemoryService, Depends(get_memory_service)]
UserId = Annotated[str, Path(pattern=USER_ID_PATTERN, description="1-128 of [A-Za-z0-9_.:@-]")]
MemoryId = Annotated[int, Path(ge=1, le=MAX_ID, description="a memory id")]
