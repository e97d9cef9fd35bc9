"""The service's Prometheus metrics, recorded where the work happens.

``prometheus-client`` is the Prometheus project's own Python client: the text format,
histogram buckets and the process collectors come from it rather than from code of
ours. The metrics live in its default registry, one set per process; the app adds what
it reads at scrape time (the database pool, the last run's levels: api/observability/metrics.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from prometheus_client import Counter, Histogram, disable_created_metrics

# The *_created series (when each counter was made) only double what a scrape reads.
disable_created_metrics()  # type: ignore[no-untyped-call]

Provider = Literal["embeddings", "llm", "reranker"]

# Seconds: a recall or request on a laptop takes milliseconds; a rescoring run, minutes.
_FAST = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_SLOW = (0.01, 0.1, 0.5, 1.0, 5.0, 15.0, 60.0, 300.0, 900.0, 3600.0)

HTTP_REQUEST_SECONDS = Histogram(
    "jarvis_http_request_duration_seconds",
    "HTTP requests by method, route template (not the raw path) and status.",
    ["method", "route", "status"],
    buckets=_FAST,
)
RECALL_SECONDS = Histogram(
    "jarvis_recall_duration_seconds", "Time to recall memories for a query.", buckets=_FAST
)
RECALL_RESULTS = Histogram(
    "jarvis_recall_results",
    "Memories returned by one recall.",
    buckets=(0, 1, 2, 3, 5, 10, 20, 50, 100),
)
RESCORE_RUNS = Counter(
    "jarvis_rescore_runs", "Rescoring runs by final status.", ["status", "trigger"]
)
RESCORE_SECONDS = Histogram(
    "jarvis_rescore_duration_seconds", "Wall time of one rescoring run.", buckets=_SLOW
)
RESCORE_ROWS = Counter("jarvis_rescore_rows", "Memories rescored by rescoring runs.")
PROVIDER_CALLS = Counter(
    "jarvis_provider_calls",
    "Calls to an optional provider (embeddings, LLM, reranker) by outcome.",
    ["provider", "outcome"],
)


@contextmanager
def provider_call(provider: Provider) -> Iterator[None]:
    """Count one call to ``provider``: ``outcome="error"`` when the block raises."""
    try:
        yield
    except Exception:  # a cancelled request (CancelledError) is no provider failure
        PROVIDER_CALLS.labels(provider, "error").inc()
        raise
    PROVIDER_CALLS.labels(provider, "ok").inc()
