"""One person's flood of recalls cannot crowd the embedding engine: with
``EMBEDDING_QUERIES_PER_PERSON`` of their query embeddings in flight, one more recall is
refused at once with 429 ``embedding_busy`` and ``Retry-After`` (not a 500, not a wait),
while another person's recall goes through; once one is done, they may recall again.

Against the real loopback embeddings server, which holds every query holding a marker
until the test releases it (counted as it arrives): driven by events, no sleeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from services.core.db import Database, build_engine
from services.core.errors import EmbeddingBusy
from services.core.settings import Settings
from services.embeddings.query_budget import QueryBudget
from tests.api.helpers import body, remember
from tests.api.test_vectors_visible_api import loaded, serving, with_provider
from tests.conftest import BACKENDS, FakeClock
from tests.db_backends import migrated_copy
from tests.providers import ProviderServer

SLOW = "QX-SLOW-QUERY"


async def recall(http: httpx.AsyncClient, user: str, query: str) -> httpx.Response:
    return await http.post(f"/v1/users/{user}/recall", json={"query": query, "track": False})


@pytest.fixture(params=BACKENDS)
async def own_db(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Database]:
    """A database of its own with real commits: concurrent requests each take their own
    connection (the ``db`` fixture's savepoints share one)."""
    async with migrated_copy(request.param, tmp_path) as url:
        database = Database(build_engine(url))
        try:
            yield database
        finally:
            await database.dispose()


async def test_a_person_over_the_budget_gets_429_and_others_recall_meanwhile(
    settings: Settings, own_db: Database, clock: FakeClock, provider: ProviderServer
) -> None:
    db = own_db
    configured = with_provider(settings, provider, embedding_queries_per_person=2)
    async with serving(configured, db, clock) as (app, http):
        await loaded(app)
        await remember(http, "flood", "My sister lives in Lisbon")
        await remember(http, "calm", "My dog is called Rex")
        provider.hold = SLOW
        held = [
            asyncio.create_task(recall(http, "flood", f"{SLOW} where does my sister live {n}"))
            for n in range(2)
        ]
        await asyncio.to_thread(provider.wait_held, 2)  # both are at the provider

        refused = await recall(http, "flood", "where does my sister live")
        assert refused.status_code == 429
        assert refused.headers["Retry-After"] == "1"
        error = body(refused, 429)["error"]
        assert error["code"] == "embedding_busy"
        assert "EMBEDDING_QUERIES_PER_PERSON" in error["message"]
        assert error["details"] == {"in_flight": 2, "limit": 2}

        # Another person's recall is not refused, nor queued behind the flood's.
        calm = body(await recall(http, "calm", "what is my dog called"), 200)
        assert [hit["memory"]["content"] for hit in calm["results"]] == ["My dog is called Rex"]

        provider.release()
        for done in await asyncio.gather(*held):
            assert done.status_code == 200
        provider.hold = None
        again = body(await recall(http, "flood", "where does my sister live"), 200)
        assert [hit["memory"]["content"] for hit in again["results"]] == [
            "My sister lives in Lisbon"
        ]


async def test_a_provider_failure_still_degrades_and_frees_the_slot(
    settings: Settings, db: Database, clock: FakeClock, provider: ProviderServer
) -> None:
    """A failing query embedding is not a 429: recall ranks lexically, and the slot it
    held is free for the next one."""
    configured = with_provider(settings, provider, embedding_queries_per_person=1)
    async with serving(configured, db, clock) as (app, http):
        await loaded(app)
        await remember(http, "u", "My sister lives in Lisbon")
        provider.mode = "error"
        for _ in range(3):
            found = body(await recall(http, "u", "sister Lisbon"), 200)
            assert [hit["memory"]["content"] for hit in found["results"]] == [
                "My sister lives in Lisbon"
            ]
        services = app.state.jarvis
        assert services.embeddings.queries.in_flight("u") == 0


def test_the_budget_counts_per_person_and_frees_a_slot_whatever_happens() -> None:
    budget = QueryBudget(per_person=2)
    with budget.hold("a"), budget.hold("a"):
        with pytest.raises(EmbeddingBusy), budget.hold("a"):
            pass
        with budget.hold("b"):
            assert (budget.in_flight("a"), budget.in_flight("b")) == (2, 1)
    with pytest.raises(RuntimeError), budget.hold("a"):
        raise RuntimeError("the provider failed")
    assert (budget.in_flight("a"), budget.in_flight("b")) == (0, 0)
