"""Liveness and readiness probes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import StateDep
from services.core.health import check_readiness

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up (touches nothing else)."""
    return {"status": "ok"}


@router.get("/readyz", responses={503: {"description": "Database down or not migrated"}})
async def readyz(state: StateDep) -> JSONResponse:
    """The database answers and its schema is at the migrations' head."""
    result = await check_readiness(state.db)
    body = {
        "status": "ready" if result.ready else "not_ready",
        "database": result.database,
        "revision": result.revision,
        "head": result.head,
        "pending_migrations": list(result.pending),
    }
    return JSONResponse(body, status_code=200 if result.ready else 503)
