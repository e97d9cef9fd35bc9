"""Operator views: every score, why it is what it is, and the rescoring jobs."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query

from api.auth import require_admin_key
from api.deps import MemoryId, MemoryServiceDep, SessionDep, StateDep, UserId
from api.errors import error_responses
from api.presenters import history_out, job_run_out, link_out, memory_out
from api.routes.listing import ListQueryDep, list_page
from api.schemas.admin import AdminMemoryOut, AdminUserOut, AdminUsersOut, JobRunOut, RescoreIn
from api.schemas.memories import MemoryPageOut
from services.admin.admin_service import AdminService
from services.core.validation import USER_ID_PATTERN
from services.scoring.jobs import run_rescore

router = APIRouter(
    prefix="/admin",
    tags=["admin"],
    dependencies=[Depends(require_admin_key)],
    responses=error_responses(401, 403),
)


async def _admin(state: StateDep, session: SessionDep) -> AdminService:
    return AdminService(session, state.settings)


AdminDep = Annotated[AdminService, Depends(_admin)]


@router.get("/users")
async def users(
    admin: AdminDep,
    limit: Annotated[int, Query(ge=1, le=500)] = 100,
    cursor: Annotated[str | None, Query(pattern=USER_ID_PATTERN)] = None,
) -> AdminUsersOut:
    """Users with their memory counts and importance-level distribution."""
    rows = await admin.users(limit + 1, cursor)
    page = rows[:limit]
    return AdminUsersOut(
        items=[
            AdminUserOut(
                user_id=u.user_id,
                memory_count=u.memory_count,
                levels=levels,
                updated_at=u.updated_at,
            )
            for u, levels in page
        ],
        next_cursor=page[-1][0].user_id if len(rows) > limit else None,
    )


@router.get("/users/{user_id}/memories", responses=error_responses(422))
async def user_memories(
    user_id: UserId, service: MemoryServiceDep, query: ListQueryDep
) -> MemoryPageOut:
    """A user's memories with every score component (``scores``), superseded ones too
    (with ``superseded_by_id``: the admin sees the whole history)."""
    return await list_page(user_id, service, query, include_superseded=True)


@router.get("/memories/{memory_id}", responses=error_responses(404))
async def memory(memory_id: MemoryId, admin: AdminDep) -> AdminMemoryOut:
    """One memory: components, weighted contributions, links and score history."""
    seen = await admin.inspect(memory_id)
    return AdminMemoryOut(
        memory=memory_out(seen.memory),
        contributions=seen.contributions,
        links=[link_out(link) for link in seen.links],
        history=[history_out(h) for h in seen.history],
    )


@router.get("/jobs")
async def jobs(admin: AdminDep, limit: Annotated[int, Query(ge=1, le=500)] = 50) -> list[JobRunOut]:
    """Rescoring runs, newest first."""
    return [job_run_out(run) for run in await admin.job_runs(limit)]


@router.post("/jobs/rescore", responses=error_responses(422))
async def rescore_now(state: StateDep, body: RescoreIn | None = None) -> JobRunOut:
    """Run rescoring now (everyone, or one user) and return the finished run."""
    run = await run_rescore(
        state.db,
        state.settings,
        state.clock,
        user_id=body.user_id if body else None,
        trigger="admin",
    )
    return job_run_out(run)


@router.get("/stats")
async def stats(state: StateDep, admin: AdminDep) -> dict[str, Any]:
    """Service-wide totals: users, memories, levels, recalls, the last rescoring run, the
    last embedding run and (with embeddings configured) the vectors still to make."""
    return await admin.stats(state.embedding_model, state.clock())
