"""Liveness and readiness probes."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import JSONResponse

from api.deps import StateDep
from services.core.health import check_readiness

router = APIRouter(tags=["health"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process is up (touches nothing else; answers while the model loads)."""
    return {"status": "ok"}


@router.get(
    "/readyz",
    responses={503: {"description": "Database down or not migrated, or the model loading"}},
)
async def readyz(state: StateDep) -> JSONResponse:
    """The database answers and its schema is at the migrations' head, and a configured
    embedding model has loaded (``embedding``: ``loading``, ``ready``, ``unavailable``
    when it could not be loaded and recall goes on without it, ``off`` when none is
    configured)."""
    result = await check_readiness(state.db)
    embedding = state.embeddings.status if state.embeddings is not None else "off"
    ready = result.ready and embedding != "loading"
    body = {
        "status": "ready" if ready else "not_ready",
        "database": result.database,
        "embedding": embedding,
        "revision": result.revision,
        "head": result.head,
        "pending_migrations": list(result.pending),
    }
    return JSONResponse(body, status_code=200 if ready else 503)
