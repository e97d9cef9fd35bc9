"""The application factory and its lifespan."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI

from api.auth import require_service_key
from api.console.routes import install_console
from api.docs_pages import install_offline_docs
from api.errors import error_responses, install_error_handlers
from api.mcp.http import mount_mcp
from api.observability import metrics
from api.observability.metrics import AppMetrics, RequestMetrics, serve_metrics_bind
from api.observability.request_logging import install_request_id
from api.routes import (
    admin,
    chat_proxy,
    context,
    conversations_admin,
    health,
    memories,
    messages,
    moved,
    recall,
    users,
)
from api.server.heap import freeze_startup_heap
from api.server.loopback import LoopbackOnly
from services.composition import Services
from services.core.clock import Clock, utcnow
from services.core.db import Database
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer

log = logging.getLogger(__name__)


def create_app(settings: Settings, *, db: Database | None = None, clock: Clock = utcnow) -> FastAPI:
    """Build the app. Tests pass their own ``db`` (bound to a rolled-back transaction)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        database = db or Database.from_settings(settings)
        # The composition root: the providers and services every edge serves with.
        services = Services(settings, database, TextAnalyzer(settings), clock)
        app.state.jarvis = services
        app.state.metrics = AppMetrics(app.state.jarvis)
        bound = (
            serve_metrics_bind(settings.metrics_bind, app.state.metrics, asyncio.get_running_loop())
            if settings.metrics_bind
            else None
        )
        services.background.start()
        # jieba's dictionaries load here, not in the first request; the embedding model
        # loads beside the serving (seconds): /healthz answers at once, /readyz says
        # ``embedding: loading`` until it is ready, and the log says when it is.
        await services.warm(embeddings=False)
        app.state.embedding_warm = asyncio.create_task(
            services.warm_embeddings(), name="warm-embeddings"
        )
        scheduler = services.scheduler() if settings.scheduler_enabled else None
        if scheduler is not None:
            scheduler.start()
        if settings.freeze_startup_heap:
            frozen = freeze_startup_heap()
            log.info("startup heap frozen: %d objects out of the cyclic collector's walk", frozen)
        try:
            # The MCP transport's task group: its calls end before the database goes.
            async with mcp.session_manager.run():
                yield
        finally:
            warming: asyncio.Task[None] = app.state.embedding_warm
            warming.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await warming
            if scheduler is not None:
                scheduler.shutdown(wait=False)
            if bound is not None:
                bound[0].shutdown()
                bound[0].server_close()
            # Before the database goes: a job still running would write to it.
            await services.background.close()
            if services.upstream is not None:
                await services.upstream.aclose()
            if db is None:
                await database.dispose()

    app = FastAPI(
        title="jarvis-memory",
        version="0.1.0",
        summary="Importance-scored personal memory for an assistant.",
        lifespan=lifespan,
        # Served by install_offline_docs from the app's own assets, not from a CDN.
        docs_url=None,
        redoc_url=None,
    )
    install_error_handlers(app)
    if not settings.auth_enabled:
        app.add_middleware(LoopbackOnly)
    # Added last, so outermost: the histogram times what the loopback check refuses too,
    # and every record logged while a request runs carries its id.
    app.add_middleware(RequestMetrics, access_log=settings.log_format == "json")
    install_request_id(app)
    v1 = [Depends(require_service_key)]
    # 403: a key bound to other users (api/auth.py).
    auth_errors = error_responses(401, 403)
    app.include_router(memories.router, dependencies=v1, responses=auth_errors)
    app.include_router(recall.router, dependencies=v1, responses=auth_errors)
    app.include_router(messages.router, dependencies=v1, responses=auth_errors)
    app.include_router(context.router, dependencies=v1, responses=auth_errors)
    app.include_router(users.router, dependencies=v1, responses=auth_errors)
    app.include_router(chat_proxy.router, dependencies=v1, responses=auth_errors)
    app.include_router(admin.router)
    app.include_router(conversations_admin.router)
    app.include_router(moved.router, dependencies=v1)  # 410s, for any valid key
    app.include_router(health.router)
    app.include_router(metrics.router)
    install_offline_docs(app)
    install_console(app)
    mcp = mount_mcp(app, settings, lambda: app.state.jarvis)
    return app


def app_from_environment() -> FastAPI:
    """The app with its settings read from the environment (and ``.env``).

    What every worker process builds when ``jarvis-memory serve --workers N`` starts
    several: uvicorn imports this factory in each one, since an app object cannot be
    handed to another process.
    """
    return create_app(Settings())
