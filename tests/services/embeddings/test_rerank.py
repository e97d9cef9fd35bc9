"""The HTTP reranker against a real loopback server: fusion by query type, explain, and
fallback to the hybrid order on errors, timeouts and malformed answers."""

from __future__ import annotations

import logging

import pytest

from services.core.settings import Settings
from services.recall.ranking.rerank import HttpReranker, RerankMode, RerankUnavailable
from services.recall.recall_service import RecallHit, RecallService
from tests.factories import Services
from tests.providers import ANSWER_TIMEOUT, ProviderServer, timeout_for

QUERY = "dog guitar"
TEXTS = [
    "dog dog dog walk in the park",  # best lexical match, one of the two concepts
    "The guitar needs new strings",  # lexical match, one concept
    "Played guitar for the canine",  # lexical match, both concepts: the reranker's pick
]


def rerank_settings(settings: Settings, provider: ProviderServer, **extra: object) -> Settings:
    return settings.model_copy(
        update={
            "rerank_base_url": provider.base_url,
            "rerank_model": "toy-reranker",
            "rerank_timeout": timeout_for(provider.mode),
            **extra,
        }
    )


async def recall(
    services: Services, settings: Settings, query: str = QUERY, mode: RerankMode | None = None
) -> list[RecallHit]:
    async with services.db.unit_of_work() as session:
        service = RecallService(
            session,
            settings,
            services.analyzer,
            services.clock,
            reranker=HttpReranker.from_settings(settings),
        )
        # Every candidate with evidence comes back: these tests are about the order.
        return await service.recall_memories(
            "u", query, 5, track=False, explain=True, rerank_mode=mode, min_confidence=0.0
        )


def ids(hits: list[RecallHit]) -> list[int]:
    return [h.memory.id for h in hits]


async def test_the_reranker_reorders_the_best_candidates_by_query_type(
    services: Services, provider: ProviderServer
) -> None:
    memories = [await services.add("u", text) for text in TEXTS]
    hybrid = await recall(services, services.settings)
    assert ids(hybrid)[0] != memories[2].id
    settings = rerank_settings(services.settings, provider)
    hits = await recall(services, settings)
    assert ids(hits)[0] == memories[2].id
    assert set(ids(hits)) == set(ids(hybrid))
    ((path, body),) = provider.requests
    assert path == "/v1/rerank"
    assert body["model"] == "toy-reranker"
    assert body["query"] == QUERY
    assert sorted(body["documents"]) == sorted(TEXTS)
    assert body["top_n"] == 3
    best = hits[0]
    assert best.rerank is not None
    weight = settings.rerank_weight("default")
    assert best.rerank.weight == weight == 0.6  # seed 004 §1: default 0.6 / 0.4
    assert best.rerank.relevance == 1.0
    assert best.score == pytest.approx(
        weight * 1.0 + (1 - weight) * best.rerank.hybrid / max(h.score for h in hybrid)
    )
    section = best.explanation["rerank"] if best.explanation else None
    assert section is not None
    assert section["contribution"] + section["hybrid_contribution"] == pytest.approx(best.score)
    # The signals still add up to the hybrid score.
    signals = best.explanation["signals"] if best.explanation else {}
    assert sum(s["contribution"] for s in signals.values()) == pytest.approx(
        section["hybrid_score"]
    )


async def test_only_the_best_candidates_are_sent_and_the_rest_stay_below(
    services: Services, provider: ProviderServer
) -> None:
    for text in TEXTS:
        await services.add("u", text)
    hybrid = await recall(services, services.settings)
    settings = rerank_settings(services.settings, provider, rerank_candidates=1)
    hits = await recall(services, settings)
    ((_, body),) = provider.requests
    assert body["documents"] == [hybrid[0].memory.content]
    assert ids(hits)[0] == ids(hybrid)[0]
    assert all(h.rerank is not None and h.rerank.relevance == 0.0 for h in hits[1:])
    assert hits[0].score > max(h.score for h in hits[1:])


def test_rerank_weights_per_query_type_follow_the_seed(settings: Settings) -> None:
    assert settings.rerank_base_url is None
    assert HttpReranker.from_settings(settings) is None
    shares = {t: settings.rerank_weight(t) for t in ("technical", "diagnostic", "personal")}
    assert shares == {"technical": 0.6, "diagnostic": 0.7, "personal": 0.6}
    with pytest.raises(ValueError, match="between 0 and 1"):
        Settings(_env_file=None, rerank_weights={"default": 1.5})


@pytest.mark.parametrize("mode", ["error", "slow", "malformed", "garbage"])
async def test_a_failing_reranker_keeps_the_hybrid_order(
    services: Services,
    provider: ProviderServer,
    mode: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    for text in TEXTS:
        await services.add("u", text)
    hybrid = await recall(services, services.settings)
    provider.mode = mode
    with caplog.at_level(logging.WARNING, logger="services.recall.ranking.rerank"):
        hits = await recall(services, rerank_settings(services.settings, provider))
    assert ids(hits) == ids(hybrid)
    assert [h.score for h in hits] == pytest.approx([h.score for h in hybrid])
    assert all(h.rerank is None for h in hits)
    assert all(h.explanation is not None and h.explanation["rerank"] is None for h in hits)
    assert "reranker failed, keeping the hybrid order" in caplog.text


async def test_a_wrong_path_is_a_failure_not_an_empty_ranking(provider: ProviderServer) -> None:
    reranker = HttpReranker(provider.base_url.replace("/v1", "/v2"), "m", timeout=ANSWER_TIMEOUT)
    with pytest.raises(RerankUnavailable, match="404"):
        await reranker.relevance("q", ["a"])
    working = HttpReranker(provider.base_url, "m")
    assert await working.relevance("dog", ["a dog", "a cat"]) == [1.0, 0.0]


_PLACES = ["park", "beach", "garden", "studio", "kitchen", "garage", "porch", "lake", "forest"]
_TIMES = ["monday", "tuesday", "friday", "sunday", "evening"]
# 45 statements about a dog and a guitar that are not near-duplicates of each other.
MANY = [f"the dog heard guitar at the {p} on {t}" for p in _PLACES for t in _TIMES]


@pytest.mark.parametrize(
    ("mode", "batches"),
    [("fast", [5, 5]), ("balanced", [10, 10]), ("quality", [20, 20])],
)
async def test_modes_choose_candidates_and_batch_sizes(
    services: Services, provider: ProviderServer, mode: str, batches: list[int]
) -> None:
    # Seed 004: FAST small batches, BALANCED the default, QUALITY large batches (at most 20
    # documents a request); 45 memories match, more than any mode sends.
    for text in MANY:
        await services.add("u", text)
    # A timeout no loaded machine reaches: only the batches are under test here.
    settings = rerank_settings(services.settings, provider, rerank_mode=mode, rerank_timeout=30)
    hits = await recall(services, settings)
    assert sorted(len(body["documents"]) for _, body in provider.requests) == sorted(batches)
    sent = [d for _, body in provider.requests for d in body["documents"]]
    assert len(set(sent)) == len(sent) == sum(batches)  # each candidate once
    assert all(h.rerank is not None and h.rerank.mode == mode for h in hits)


async def test_a_recall_chooses_its_mode(services: Services, provider: ProviderServer) -> None:
    for text in MANY[:12]:
        await services.add("u", text)
    settings = rerank_settings(services.settings, provider, rerank_timeout=30)  # balanced
    await recall(services, settings, mode="fast")
    assert [len(body["documents"]) for _, body in provider.requests] == [5, 5]


async def test_one_failed_batch_keeps_the_hybrid_order(
    services: Services, provider: ProviderServer, caplog: pytest.LogCaptureFixture
) -> None:
    for text in MANY[:12]:
        await services.add("u", text)
    hybrid = await recall(services, services.settings)
    provider.fail_after = 1  # the first batch is answered, the second is a 500
    settings = rerank_settings(services.settings, provider, rerank_timeout=30)
    with caplog.at_level(logging.WARNING, logger="services.recall.ranking.rerank"):
        hits = await recall(services, settings)
    assert len(provider.requests) == 2
    assert ids(hits) == ids(hybrid)
    assert all(h.rerank is None for h in hits)
    assert "reranker failed" in caplog.text
