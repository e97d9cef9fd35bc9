"""Links between memories: explicit and topic links, and the impact they give."""

from __future__ import annotations

import httpx
import pytest

from tests.api.helpers import (
    CLOCK_START,
    MISSING_ID,
    Json,
    assert_error,
    body,
    fetch,
    memories_url,
    remember,
    weighted_sum,
)

URL = memories_url("alice")


async def link(client: httpx.AsyncClient, source: int, target: int, **extra: float) -> Json:
    resp = await client.post(f"{URL}/{source}/links", json={"target_id": target, **extra})
    created: Json = body(resp, 201)
    return created


async def links_of(client: httpx.AsyncClient, memory_id: int) -> list[Json]:
    found: list[Json] = body(await client.get(f"{URL}/{memory_id}/links"), 200)
    return found


async def two_unrelated(client: httpx.AsyncClient) -> tuple[Json, Json]:
    a = await remember(client, "alice", "I bought a new bicycle yesterday")
    b = await remember(client, "alice", "My sister lives in Berlin now")
    assert not set(a["topics"]) & set(b["topics"])
    assert a["associated_count"] == b["associated_count"] == 0
    return a, b


async def test_explicit_link_raises_both_impacts(client: httpx.AsyncClient) -> None:
    a, b = await two_unrelated(client)
    created = await link(client, b["id"], a["id"], weight=2.5)
    assert created == {
        "memory_id_a": a["id"],
        "memory_id_b": b["id"],
        "kind": "explicit",
        "weight": 2.5,
        "shared_topics": [],
        "created_at": CLOCK_START,
    }
    for before in (a, b):
        after = await fetch(client, "alice", before["id"])
        assert after["associated_count"] == 1
        assert after["scores"]["impact"] == pytest.approx(0.2)
        assert after["importance_score"] == pytest.approx(before["importance_score"] + 0.2 * 0.2)
        assert after["importance_score"] == pytest.approx(weighted_sum(after["scores"]))
        assert await links_of(client, before["id"]) == [created]


async def test_linking_twice_counts_once(client: httpx.AsyncClient) -> None:
    a, b = await two_unrelated(client)
    await link(client, a["id"], b["id"], weight=3.0)
    again = await link(client, b["id"], a["id"], weight=1.0)
    assert again["weight"] == 3.0
    assert (await fetch(client, "alice", a["id"]))["associated_count"] == 1
    assert (await fetch(client, "alice", b["id"]))["associated_count"] == 1
    assert len(await links_of(client, a["id"])) == 1


async def test_impact_saturates_at_five_links(client: httpx.AsyncClient) -> None:
    hub = await remember(client, "alice", "Weekly planning notes")
    others = [
        await remember(client, "alice", text)
        for text in (
            "Buy oat milk",
            "Call the plumber",
            "Renew the passport",
            "Learn to sail",
            "Water the ferns",
            "Fix the bike light",
        )
    ]
    for n, other in enumerate(others, start=1):
        await link(client, hub["id"], other["id"])
        scores = (await fetch(client, "alice", hub["id"]))["scores"]
        assert scores["impact"] == pytest.approx(min(1.0, n / 5))
    assert (await fetch(client, "alice", hub["id"]))["associated_count"] == 6
    assert len(await links_of(client, hub["id"])) == 6


async def test_link_errors(client: httpx.AsyncClient) -> None:
    a, _ = await two_unrelated(client)
    self_link = await client.post(f"{URL}/{a['id']}/links", json={"target_id": a["id"]})
    assert_error(self_link, 422, "invalid_input")
    missing = await client.post(f"{URL}/{a['id']}/links", json={"target_id": MISSING_ID})
    assert str(MISSING_ID) in assert_error(missing, 404, "memory_not_found")["message"]
    no_source = await client.post(f"{URL}/{MISSING_ID}/links", json={"target_id": a["id"]})
    assert_error(no_source, 404, "memory_not_found")
    assert_error(await client.get(f"{URL}/{MISSING_ID}/links"), 404, "memory_not_found")
    for bad in ({"target_id": a["id"], "weight": 0}, {"target_id": "x"}, {"target": 1}, {}):
        resp = await client.post(f"{URL}/{a['id']}/links", json=bad)
        assert_error(resp, 422, "invalid_input")
    after = await fetch(client, "alice", a["id"])
    assert after["associated_count"] == 0
    assert await links_of(client, a["id"]) == []


async def test_shared_topics_link_automatically(client: httpx.AsyncClient) -> None:
    a = await remember(client, "alice", "项目经理周一开会")
    b = await remember(client, "alice", "项目经理周二开会")
    assert b["associated_count"] == 1
    (topic_link,) = await links_of(client, a["id"])
    assert topic_link["kind"] == "topic"
    assert (topic_link["memory_id_a"], topic_link["memory_id_b"]) == (a["id"], b["id"])
    assert "项目经理" in topic_link["shared_topics"]
    assert (await fetch(client, "alice", a["id"]))["associated_count"] == 1
    # An explicit link on the same pair upgrades it instead of counting twice.
    upgraded = await link(client, a["id"], b["id"])
    assert upgraded["kind"] == "explicit"
    assert upgraded["shared_topics"] == topic_link["shared_topics"]
    assert (await fetch(client, "alice", a["id"]))["associated_count"] == 1


async def test_editing_content_drops_topic_links_but_keeps_explicit_ones(
    client: httpx.AsyncClient,
) -> None:
    a = await remember(client, "alice", "项目经理周一开会")
    b = await remember(client, "alice", "项目经理周二开会")
    c = await remember(client, "alice", "I bought a new bicycle yesterday")
    await link(client, a["id"], c["id"])
    assert (await fetch(client, "alice", a["id"]))["associated_count"] == 2
    resp = await client.patch(f"{URL}/{a['id']}", json={"content": "My sister lives in Berlin"})
    assert body(resp, 200)["associated_count"] == 1
    assert [(x["memory_id_b"], x["kind"]) for x in await links_of(client, a["id"])] == [
        (c["id"], "explicit")
    ]
    b_after = await fetch(client, "alice", b["id"])
    assert (b_after["associated_count"], b_after["scores"]["impact"]) == (0, 0.0)
    assert (await fetch(client, "alice", c["id"]))["associated_count"] == 1


async def test_deleting_a_memory_removes_its_links(client: httpx.AsyncClient) -> None:
    a, b = await two_unrelated(client)
    await link(client, a["id"], b["id"])
    assert (await client.delete(f"{URL}/{a['id']}")).status_code == 204
    b_after = await fetch(client, "alice", b["id"])
    assert (b_after["associated_count"], b_after["scores"]["impact"]) == (0, 0.0)
    assert b_after["importance_score"] == pytest.approx(b["importance_score"])
    assert await links_of(client, b["id"]) == []
