"""``/metrics`` (Prometheus text), METRICS_BIND, and request ids in JSON logs.

Counters are per process and tests share one: each test compares two scrapes.
"""

from __future__ import annotations

import io
import json
import logging
import socket
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from asgi_correlation_id import CorrelationIdFilter
from prometheus_client.parser import text_string_to_metric_families

from api.app import create_app
from api.observability.request_logging import json_formatter
from services.core.db import Database
from services.core.settings import Settings
from tests.api.helpers import recall
from tests.conftest import FakeClock
from tests.providers import ANSWER_TIMEOUT, ProviderServer
from tests.timing import lifespan

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]
MEMORIES_ROUTE = "/v1/users/{user_id}/memories"


def parse(text: str) -> Samples:
    """Every sample of a scrape by name and labels (the parser rejects a malformed one)."""
    return {
        (s.name, frozenset(s.labels.items())): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


async def scrape(client: httpx.AsyncClient, **headers: str) -> Samples:
    answer = await client.get("/metrics", headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain; version=")
    return parse(answer.text)


@pytest.fixture
async def observed(
    db: Database, settings: Settings, clock: FakeClock, provider: ProviderServer
) -> AsyncIterator[httpx.AsyncClient]:
    """The app with an embeddings provider on loopback and JSON logs."""
    configured = settings.model_copy(
        update={
            "embedding_provider": "openai",
            "embedding_base_url": provider.base_url,
            "embedding_model": "toy",
            "embedding_timeout": ANSWER_TIMEOUT,
            # Each write calls the provider itself (not the backfill job), so the failed
            # call below is the write's own.
            "embedding_at_write": True,
            "log_format": "json",
        }
    )
    app = create_app(configured, db=db, clock=clock)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http,
    ):
        yield http


async def test_metrics_count_requests_recalls_rescoring_providers_and_levels(
    observed: httpx.AsyncClient, provider: ProviderServer
) -> None:
    before = await scrape(observed)
    for text in ["my sister lives in Lisbon", "I walk the dog every morning"]:
        added = await observed.post("/v1/users/ann/memories", json={"content": text})
        assert added.status_code == 201
    provider.mode = "error"  # the next write is stored without a vector: one failed call
    assert (await observed.post("/v1/users/ann/memories", json={"content": "a guitar"})).is_success
    provider.mode = "ok"
    hits = await recall(observed, "ann", "dog", top_k=2)
    assert (await observed.get("/v1/users/ann/memories/999999")).status_code == 404
    assert (await observed.get("/no/such/path")).status_code == 404
    run = (await observed.post("/admin/jobs/rescore")).json()
    assert run["status"] == "succeeded"
    after = await scrape(observed)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    request = "jarvis_http_request_duration_seconds_count"
    assert delta(request, method="POST", route=MEMORIES_ROUTE, status="201") == 3
    # The route's template, never the raw path; every unknown path shares one series.
    assert delta(request, method="GET", route=MEMORIES_ROUTE + "/{memory_id}", status="404") == 1
    assert delta(request, method="GET", route="unmatched", status="404") == 1
    assert not any("/v1/users/ann" in dict(labels).get("route", "") for _, labels in after)
    assert delta("jarvis_recall_duration_seconds_count") >= 1
    assert delta("jarvis_recall_results_sum") >= len(hits) >= 1
    assert delta("jarvis_rescore_runs_total", status="succeeded", trigger="admin") == 1
    assert delta("jarvis_rescore_rows_total") == run["rows"] == 3
    assert delta("jarvis_rescore_duration_seconds_count") == 1
    assert delta("jarvis_provider_calls_total", provider="embeddings", outcome="error") == 1
    assert delta("jarvis_provider_calls_total", provider="embeddings", outcome="ok") >= 3
    levels = {
        dict(labels)["level"]: count
        for (name, labels), count in after.items()
        if name == "jarvis_memories"
    }
    stats = (await observed.get("/admin/stats")).json()
    assert levels == stats["levels"]
    assert sum(levels.values()) == 3
    assert ("jarvis_db_pool_in_use", frozenset()) in after


async def test_metrics_need_an_admin_key_when_auth_is_on(db: Database, clock: FakeClock) -> None:
    settings = Settings(
        _env_file=None,
        scheduler_enabled=False,
        freeze_startup_heap=False,
        jarvis_api_keys=["svc"],
        jarvis_admin_keys=["adm"],
    )
    app = create_app(settings, db=db, clock=clock)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http,
    ):
        assert (await http.get("/metrics")).status_code == 401
        refused = await http.get("/metrics", headers={"Authorization": "Bearer svc"})
        assert refused.status_code == 403
        assert ("jarvis_db_pool_in_use", frozenset()) in await scrape(
            http, Authorization="Bearer adm"
        )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def test_metrics_bind_serves_metrics_on_a_listener_of_its_own(
    db: Database, clock: FakeClock
) -> None:
    port = _free_port()
    settings = Settings(
        _env_file=None,
        scheduler_enabled=False,
        freeze_startup_heap=False,
        jarvis_admin_keys=["adm"],
        metrics_bind=f"127.0.0.1:{port}",
    )
    app = create_app(settings, db=db, clock=clock)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as api,
    ):
        headers = {"Authorization": "Bearer adm"}
        await api.post("/v1/users/bo/memories", json={"content": "hello"}, headers=headers)
        assert (await api.post("/admin/jobs/rescore", headers=headers)).status_code == 200
        async with httpx.AsyncClient() as outside:
            answer = await outside.get(f"http://127.0.0.1:{port}/metrics")
        assert answer.status_code == 200
        samples = parse(answer.text)
        # Read from the run on the app's loop, through the app's database.
        assert sum(v for (n, _), v in samples.items() if n == "jarvis_memories") == 1
    async with httpx.AsyncClient() as outside:  # the listener closed with the app
        with pytest.raises(httpx.ConnectError):
            await outside.get(f"http://127.0.0.1:{port}/metrics")


@pytest.fixture
def json_lines() -> Iterator[io.StringIO]:
    """What api.access logs, through the JSON formatter of LOG_FORMAT=json."""
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(json_formatter())
    handler.addFilter(CorrelationIdFilter())
    logger = logging.getLogger("api.access")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield out
    finally:
        logger.removeHandler(handler)
        logger.setLevel(logging.NOTSET)


async def test_request_ids_are_kept_or_made_returned_and_logged_as_json(
    observed: httpx.AsyncClient, json_lines: io.StringIO
) -> None:
    given = await observed.get("/v1/users/ann/memories", headers={"X-Request-ID": "client-42"})
    assert given.headers["X-Request-ID"] == "client-42"
    made = await observed.get("/v1/users/ann/memories")
    # A caller's id that could forge log lines or flood them is replaced by a new one.
    replaced = await observed.get("/v1/users/ann/memories", headers={"X-Request-ID": "x" * 200})
    for answer in (made, replaced):
        assert len(answer.headers["X-Request-ID"]) == 32
    assert made.headers["X-Request-ID"] != replaced.headers["X-Request-ID"]
    lines = [json.loads(line) for line in json_lines.getvalue().splitlines()]
    assert [line["request_id"] for line in lines] == [
        "client-42",
        made.headers["X-Request-ID"],
        replaced.headers["X-Request-ID"],
    ]
    first = lines[0]
    assert first["route"] == MEMORIES_ROUTE
    assert (first["status"], first["method"], first["level"]) == (200, "GET", "INFO")
    assert first["logger"] == "api.access"
    assert first["time"].endswith("Z")
