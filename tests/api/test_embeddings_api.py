"""The real app with embeddings and a reranker on a loopback provider: a paraphrase comes
back over REST with its semantic and rerank parts explained; a provider outage changes
nothing a client can see but the ranking; users stay apart."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from api.app import create_app
from services.core.db import Database
from services.core.settings import Settings
from tests.api.helpers import body, recall, remember
from tests.conftest import FakeClock
from tests.providers import ANSWER_TIMEOUT, ProviderServer
from tests.timing import lifespan

PARAPHRASE = "Ann, my sister, resides in Lisbon"
QUERY = "which town is the sibling's home"


@pytest.fixture
async def semantic_client(
    db: Database, settings: Settings, clock: FakeClock, provider: ProviderServer
) -> AsyncIterator[httpx.AsyncClient]:
    configured = settings.model_copy(
        update={
            "embedding_provider": "openai",
            "embedding_base_url": provider.base_url,
            "embedding_model": "toy",
            "embedding_timeout": ANSWER_TIMEOUT,
            "embedding_at_write": True,  # these tests are of write-time vectors
            "rerank_base_url": provider.base_url,
            "rerank_model": "toy-reranker",
            "rerank_timeout": ANSWER_TIMEOUT,
        }
    )
    app = create_app(configured, db=db, clock=clock)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http,
    ):
        yield http


async def test_a_paraphrase_comes_back_with_semantic_and_rerank_explained(
    semantic_client: httpx.AsyncClient, provider: ProviderServer
) -> None:
    sister = await remember(semantic_client, "alice", PARAPHRASE)
    await remember(semantic_client, "alice", "I walk the dog at seven")
    await remember(semantic_client, "bob", PARAPHRASE)
    # How it ranks and is explained: a store of two has no standing for the similarity,
    # and confidence is not what this test is about, so no floor.
    results = await recall(
        semantic_client, "alice", QUERY, explain=True, track=False, min_confidence=0.0
    )
    assert results[0]["memory"]["id"] == sister["id"]
    assert all(r["memory"]["user_id"] == "alice" for r in results)
    explanation = results[0]["explanation"]
    semantic = explanation["signals"]["semantic"]
    assert semantic["value"] > 0.5
    assert semantic["contribution"] == pytest.approx(semantic["value"] * semantic["weight"])
    rerank = explanation["rerank"]
    assert rerank["relevance"] == 1.0
    assert rerank["weight"] == 0.6
    assert rerank["contribution"] + rerank["hybrid_contribution"] == pytest.approx(
        results[0]["score"]
    )
    assert rerank["mode"] == "balanced"
    assert "/v1/rerank" in provider.paths()
    quality = await recall(
        semantic_client,
        "alice",
        QUERY,
        explain=True,
        track=False,
        rerank_mode="quality",
        min_confidence=0.0,
    )
    assert quality[0]["explanation"]["rerank"]["mode"] == "quality"
    resp = await semantic_client.post(
        "/v1/users/alice/recall", json={"query": QUERY, "rerank_mode": "slowest"}
    )
    assert resp.status_code == 422


async def test_a_provider_outage_only_drops_the_semantic_part(
    semantic_client: httpx.AsyncClient, provider: ProviderServer
) -> None:
    provider.mode = "error"
    dog = await remember(semantic_client, "alice", "I walk the dog at seven")
    results = await recall(semantic_client, "alice", "the dog", explain=True)
    assert [r["memory"]["id"] for r in results] == [dog["id"]]
    assert results[0]["explanation"]["signals"]["semantic"]["value"] == 0.0
    assert results[0]["explanation"]["rerank"] is None
    # The vector is missing, not the memory: the backfill job adds it later.
    provider.mode = "ok"
    fetched = body(await semantic_client.get(f"/v1/users/alice/memories/{dog['id']}"), 200)
    assert fetched["content"] == "I walk the dog at seven"
