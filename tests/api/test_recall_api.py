"""Recall: ranking by fused signals, explanations, tracking and filters."""

from __future__ import annotations

import httpx
import pytest

from tests.api.helpers import Json, body, fetch, recall, remember
from tests.conftest import FakeClock

SIGNALS = {
    "lexical",
    "phrase",
    "importance",
    "temporal",
    "recency",
    "continuity",
    "semantic",
    "cross_lingual",
    "feeling",
}
# Default weights of personal and default queries (README, RECALL_WEIGHTS_PERSONAL).
WEIGHTS = {"lexical": 0.7, "phrase": 0.2, "importance": 0.1, "continuity": 0.5}


async def seed(client: httpx.AsyncClient, clock: FakeClock) -> dict[str, Json]:
    """Five memories said an hour apart: separate sessions, so no continuity between them."""
    said = [
        ("tea", "I drink green tea every morning", "other"),
        ("coffee", "Coffee after lunch makes me jittery", "other"),
        ("pm", "我的项目经理叫张伟", "other"),
        ("urgent", "这个很急，很重要", "todo"),
        ("trip", "下周去上海出差", "event"),
    ]
    stored = {}
    for name, content, memory_type in said:
        stored[name] = await remember(client, "alice", content, memory_type=memory_type)
        clock.advance(hours=1)
    return stored


def signal_sum(hit: Json) -> float:
    return sum(float(s["contribution"]) for s in hit["explanation"]["signals"].values())


def ids(results: list[Json]) -> list[int]:
    return [h["memory"]["id"] for h in results]


async def test_best_match_first_with_its_numbers(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    m = await seed(client, clock)
    (plain,) = await recall(client, "alice", "green tea in the morning", track=False)
    assert plain["explanation"] is None
    (hit,) = await recall(client, "alice", "green tea in the morning", explain=True)
    assert hit["memory"]["id"] == m["tea"]["id"]
    assert (hit["score"], hit["relevance"]) == (plain["score"], 1.0)
    assert hit["importance"] == pytest.approx(m["tea"]["importance_score"])
    signals = hit["explanation"]["signals"]
    assert set(signals) == SIGNALS
    assert hit["score"] == pytest.approx(signal_sum(hit))
    # "green tea" is said word for word: half the query's adjacent word pairs match.
    assert signals["phrase"]["value"] == pytest.approx(1 / 2)
    expected = WEIGHTS["lexical"] * 1.0 + WEIGHTS["phrase"] * 0.5
    expected += WEIGHTS["importance"] * hit["importance"]
    assert hit["score"] == pytest.approx(expected)


async def test_chinese_finds_chinese_and_english_finds_english(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    m = await seed(client, clock)
    assert ids(await recall(client, "alice", "项目经理", track=False)) == [m["pm"]["id"]]
    assert ids(await recall(client, "alice", "上海出差", track=False)) == [m["trip"]["id"]]
    # Stemming: "drinking" meets "drink"; case does not matter.
    assert ids(await recall(client, "alice", "DRINKING Tea", track=False)) == [m["tea"]["id"]]
    assert ids(await recall(client, "alice", "jittery coffee", track=False)) == [m["coffee"]["id"]]
    assert await recall(client, "alice", "zebra crossing", track=False) == []
    assert await recall(client, "nobody", "tea") == []


async def test_explain_breaks_the_score_down(client: httpx.AsyncClient, clock: FakeClock) -> None:
    m = await seed(client, clock)
    (hit,) = await recall(client, "alice", "项目经理", explain=True, track=False)
    assert hit["memory"]["id"] == m["pm"]["id"]
    ex = hit["explanation"]
    assert (ex["mode"], ex["query_type"], ex["time_expression"]) == ("fused", "default", None)
    assert ex["score"] == pytest.approx(hit["score"]) == pytest.approx(signal_sum(hit))
    rel, imp = ex["relevance"], ex["importance"]
    assert rel["contribution"] == ex["signals"]["lexical"]["contribution"]
    assert imp["contribution"] == pytest.approx(ex["signals"]["importance"]["contribution"])
    assert rel["weight"] == WEIGHTS["lexical"]
    assert rel["normalized"] == hit["relevance"] == 1.0
    terms = {t["term"] for t in rel["matched_terms"]}
    assert {"项目经理", "项目", "经理"} <= terms
    assert sum(t["contribution"] for t in rel["matched_terms"]) == pytest.approx(rel["bm25"])
    contributions = [t["contribution"] for t in rel["matched_terms"]]
    assert contributions == sorted(contributions, reverse=True)
    assert imp["weight"] == WEIGHTS["importance"]
    assert imp["score"] == pytest.approx(m["pm"]["importance_score"])
    assert imp["level"] == m["pm"]["importance_level"]
    parts = imp["components"]
    assert set(parts) == {"frequency", "recency", "emotion", "impact"}
    for name, part in parts.items():
        assert part["value"] == pytest.approx(m["pm"]["scores"][name])
        assert part["contribution"] == pytest.approx(part["value"] * part["weight"])
    assert sum(p["contribution"] for p in parts.values()) == pytest.approx(imp["score"], abs=1e-9)


async def test_explain_without_query(client: httpx.AsyncClient, clock: FakeClock) -> None:
    await seed(client, clock)
    results = await recall(client, "alice", "", explain=True, track=False)
    for hit in results:
        ex = hit["explanation"]
        assert ex["mode"] == "importance_only"
        assert ex["relevance"]["contribution"] == 0.0
        assert ex["relevance"]["matched_terms"] == []
        assert ex["importance"]["contribution"] == pytest.approx(hit["score"], abs=1e-9)


async def test_tracking_counts_each_recall_once(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    m = await seed(client, clock)
    tea, coffee = m["tea"]["id"], m["coffee"]["id"]
    for _ in range(3):
        await recall(client, "alice", "green tea", track=False)
    untracked = await fetch(client, "alice", tea)
    assert (untracked["recall_count"], untracked["frequency_count"]) == (0, 1)
    assert untracked["last_recalled_at"] is None
    assert untracked["importance_score"] == m["tea"]["importance_score"]

    clock.advance(hours=2)
    (hit,) = await recall(client, "alice", "green tea", top_k=1)
    assert hit["memory"]["recall_count"] == 1  # the returned memory shows the new count
    assert hit["memory"]["last_recalled_at"] == "2026-01-01T16:00:00Z"
    await recall(client, "alice", "green tea", top_k=1)
    tracked = await fetch(client, "alice", tea)
    assert (tracked["recall_count"], tracked["frequency_count"]) == (2, 3)
    assert tracked["importance_score"] > m["tea"]["importance_score"]
    other = await fetch(client, "alice", coffee)
    assert (other["recall_count"], other["last_recalled_at"]) == (0, None)
    assert other["updated_at"] == "2026-01-01T10:00:00Z"  # when it was said


async def test_empty_query_returns_most_important_first(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    m = await seed(client, clock)
    await remember(client, "alice", "下周去上海出差！", status=200)
    for query in ("", "   ", "？！。"):
        results = await recall(client, "alice", query, track=False)
        assert len(results) == len(m)
        assert ids(results)[:2] == [m["urgent"]["id"], m["trip"]["id"]]
        importances = [h["importance"] for h in results]
        assert importances == sorted(importances, reverse=True)
        for hit in results:
            assert hit["relevance"] == 0.0
            assert hit["score"] == pytest.approx(hit["importance"])
    assert len(await recall(client, "alice", "", top_k=2, track=False)) == 2


@pytest.mark.parametrize(
    ("important", "plain"),
    [
        ("下周的面试很急", "下周的面试很难"),
        ("明天的会议让我担心", "明天的会议让我放心"),
        ("项目经理明天开会", "项目经理今天开会"),
    ],
)
async def test_equally_relevant_ranks_the_more_important_first(
    client: httpx.AsyncClient, important: str, plain: str
) -> None:
    # The important one is older, so the id tie-break alone would put it second.
    first = await remember(client, "alice", important)
    second = await remember(client, "alice", plain)
    if first["scores"]["emotion"] == 0.0:  # no emotion word: make it important by repetition
        await remember(client, "alice", important, status=200)
        await remember(client, "alice", important, status=200)
    first = await fetch(client, "alice", first["id"])
    assert first["importance_score"] > second["importance_score"]
    query = important[:2]
    results = await recall(client, "alice", query, track=False)
    assert ids(results) == [first["id"], second["id"]]
    # Not more relevant, yet first: importance decides.
    assert results[0]["relevance"] <= results[1]["relevance"] + 1e-9
    assert results[0]["score"] > results[1]["score"]


async def test_recalled_more_ranks_first(client: httpx.AsyncClient) -> None:
    older = await remember(client, "alice", "项目经理明天开会")
    newer = await remember(client, "alice", "项目经理今天开会")
    tie = await recall(client, "alice", "项目经理", track=False)
    assert ids(tie) == [newer["id"], older["id"]]  # equal scores: newest first
    # The frontend says what its answers used (a tracked recall counts only the hits it is
    # nearly sure of, which depends on the store's statistics, not on this test).
    for _ in range(2):
        assert ids(await recall(client, "alice", "明天", top_k=1, track=False)) == [older["id"]]
        used = await client.post("/v1/users/alice/memories/used", json={"ids": [older["id"]]})
        assert body(used, 200)["counted"] == [older["id"]]
    assert ids(await recall(client, "alice", "项目经理", track=False)) == [older["id"], newer["id"]]


async def test_types_filter(client: httpx.AsyncClient, clock: FakeClock) -> None:
    m = await seed(client, clock)
    only = await recall(client, "alice", "", types=["todo", "event"], track=False)
    assert set(ids(only)) == {m["urgent"]["id"], m["trip"]["id"]}
    # The filter, not the floor (each memory holds one of the three words): no floor.
    lexical = await recall(
        client, "alice", "很急 上海 tea", types=["event"], track=False, min_confidence=0.0
    )
    assert ids(lexical) == [m["trip"]["id"]]
    assert lexical[0]["relevance"] == 1.0
    none = await recall(client, "alice", "tea", types=["decision"], track=False, min_confidence=0)
    assert none == []


async def test_recall_response_shape(client: httpx.AsyncClient, clock: FakeClock) -> None:
    await seed(client, clock)
    resp = await client.post("/v1/users/alice/recall", json={"query": "tea", "track": False})
    payload = body(resp, 200)
    assert list(payload) == ["results", "sufficient", "coverage"]
    (hit,) = payload["results"]
    assert set(hit) == {
        *("memory", "score", "relevance", "importance", "explanation"),
        *("confidence", "evidence", "counted"),
    }
    assert hit["memory"]["content"] == "I drink green tea every morning"
