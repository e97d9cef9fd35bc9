"""``/metrics`` in Prometheus' text format, and the request histogram.

The counters and histograms of the work itself live in services/core/metrics.py. Here:
the middleware that times every request by route *template* (``/v1/users/{user_id}/...``,
so one series per route, not per user), what is read at scrape time (connections of the
database pool in use, memories per level from the last full rescoring run, the vectors
still to make and the backfill's rate, the embedding model's state), the route,
and ``METRICS_BIND``'s listener of its own.

Every process keeps its own counters: behind ``serve --workers N`` a scrape reaches one
worker (Prometheus' multiprocess mode is not set up).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable, Iterator
from threading import Thread
from typing import TYPE_CHECKING, Any
from wsgiref.simple_server import WSGIServer

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest, start_http_server
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector, CollectorRegistry
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.auth import require_admin_key
from api.errors import error_responses
from services.admin.admin_service import AdminService, VectorBacklog
from services.core.metrics import HTTP_REQUEST_SECONDS

if TYPE_CHECKING:
    from services.composition import Services

log = logging.getLogger(__name__)
access_log = logging.getLogger("api.access")

# Requests that matched no route share one label: a scan of random paths must not
# create a series per path.
UNMATCHED = "unmatched"


def route_template(scope: Scope) -> str:
    """The matched route's path template, the mount's prefix, or ``unmatched``."""
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) and path else UNMATCHED


class RequestMetrics:
    """ASGI middleware: time each HTTP request into ``jarvis_http_request_duration_seconds``.

    With ``access_log`` (``LOG_FORMAT=json``) it also logs one ``api.access`` record per
    request with method, route, path, status and duration, in place of uvicorn's line.
    """

    def __init__(self, app: ASGIApp, access_log: bool = False) -> None:
        self.app = app
        self.access_log = access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # an exception that escapes every handler is answered 500
        started = time.perf_counter()

        async def sending(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            elapsed = time.perf_counter() - started
            route = route_template(scope)
            HTTP_REQUEST_SECONDS.labels(scope["method"], route, str(status)).observe(elapsed)
            if self.access_log:
                access_log.info(
                    "%s %s %d",
                    scope["method"],
                    scope["path"],
                    status,
                    extra={
                        "method": scope["method"],
                        "route": route,
                        "path": scope["path"],
                        "status": status,
                        "duration_ms": round(elapsed * 1000, 3),
                    },
                )


class _Process(Collector):
    """The process-wide registry (services' metrics, process and GC collectors)."""

    def collect(self) -> Iterable[Any]:
        return REGISTRY.collect()

    def describe(self) -> Iterable[Any]:
        return []


class AppMetrics(Collector):
    """What one app reads at scrape time: its database pool and the levels' counts."""

    def __init__(self, state: Services) -> None:
        self.state = state
        self.levels: dict[str, int] = {}
        self.backlog: VectorBacklog | None = None

    async def refresh(self) -> None:
        """Read the newest full rescoring run's level counts (one indexed row) and, with
        embeddings configured, the vectors still to make (one anti-join) and the last
        backfill run's rate. A reader: on SQLite a scrape must not queue for the write
        lock behind every write."""
        async with self.state.db.reader() as session:
            admin = AdminService(session, self.state.settings)
            self.levels = await admin.last_levels()
            model = self.state.embedding_model
            self.backlog = (
                None if model is None else await admin.vector_backlog(model, self.state.clock())
            )

    def describe(self) -> Iterable[Any]:
        return []

    def collect(self) -> Iterator[GaugeMetricFamily]:
        pool = self.state.db.engine.pool
        checked_out = getattr(pool, "checkedout", None)
        if callable(checked_out):
            yield GaugeMetricFamily(
                "jarvis_db_pool_in_use",
                "Database connections checked out of the pool now.",
                value=float(checked_out()),
            )
        levels = GaugeMetricFamily(
            "jarvis_memories",
            "Memories per importance level, as the last full rescoring run counted them.",
            labels=["level"],
        )
        for level, count in sorted(self.levels.items()):
            levels.add_metric([level], float(count))
        yield levels
        embeddings = self.state.embeddings
        if embeddings is not None:
            status = GaugeMetricFamily(
                "jarvis_embedding_status",
                "1 for the embedding provider's state now (loading, ready, unavailable).",
                labels=["status"],
            )
            for name in ("loading", "ready", "unavailable"):
                status.add_metric([name], 1.0 if embeddings.status == name else 0.0)
            yield status
        backlog = self.backlog
        if backlog is not None:
            yield GaugeMetricFamily(
                "jarvis_vectors_pending",
                "Memories without a vector from the current embedding model.",
                value=float(backlog.pending),
            )
            yield GaugeMetricFamily(
                "jarvis_vectors_oldest_pending_seconds",
                "Age of the oldest memory waiting for a vector (0 when none waits).",
                value=backlog.oldest_pending_seconds or 0.0,
            )
            yield GaugeMetricFamily(
                "jarvis_vectors_failed",
                "Memories whose text the embedding provider would not embed (skipped).",
                value=float(backlog.failed),
            )
            if backlog.backfill_rate is not None:
                yield GaugeMetricFamily(
                    "jarvis_embedding_backfill_rate",
                    "Vectors per second of the last finished backfill run that made any.",
                    value=backlog.backfill_rate,
                )


def app_registry(metrics: AppMetrics) -> CollectorRegistry:
    """A registry of the process' metrics and this app's."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Process())
    registry.register(metrics)
    return registry


class _RefreshingRegistry(CollectorRegistry):
    """For METRICS_BIND's thread: refresh the levels on the app's loop, then collect."""

    def __init__(self, metrics: AppMetrics, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(auto_describe=False)
        self._metrics, self._loop = metrics, loop
        self.register(_Process())
        self.register(metrics)

    def collect(self) -> Iterable[Any]:
        try:
            asyncio.run_coroutine_threadsafe(self._metrics.refresh(), self._loop).result(10)
        except Exception as exc:  # a scrape still answers with what it has
            log.warning("metrics: could not read the level counts: %s", exc)
        return super().collect()


def serve_metrics_bind(
    bind: str, metrics: AppMetrics, loop: asyncio.AbstractEventLoop
) -> tuple[WSGIServer, Thread]:
    """Start prometheus-client's own HTTP server on ``host:port`` (a daemon thread)."""
    host, _, port = bind.rpartition(":")
    return start_http_server(int(port), host, registry=_RefreshingRegistry(metrics, loop))


router = APIRouter(tags=["admin"])


@router.get(
    "/metrics",
    dependencies=[Depends(require_admin_key)],
    response_class=Response,
    responses={
        200: {"content": {CONTENT_TYPE_LATEST: {}}, "description": "Prometheus text"},
        **error_responses(401, 403),
    },
)
async def metrics(request: Request) -> Response:
    """Prometheus metrics of this process (an admin key when auth is on)."""
    collected: AppMetrics = request.app.state.metrics
    await collected.refresh()
    body = generate_latest(app_registry(collected))
    return Response(body, media_type=CONTENT_TYPE_LATEST)
