"""Remember, merge, batch, read, edit and forget memories over REST."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import (
    CLOCK_START,
    MISSING_ID,
    assert_error,
    body,
    fetch,
    list_all,
    memories_url,
    recall,
    remember,
    total_memories,
    weighted_sum,
)
from tests.conftest import FakeClock

URL = memories_url("alice")
METADATA: dict[str, Any] = {
    "chat": {"id": "c-42", "turns": [1, 2, {"speaker": "用户", "ok": True}]},
    "score": 0.5,
    "none": None,
    "tags": [],
}


async def test_create_returns_fields_unchanged_and_scores(client: httpx.AsyncClient) -> None:
    m = await remember(
        client,
        "alice",
        "I drink green tea every morning",
        memory_type="preference",
        source="chat",
        metadata=METADATA,
        emotion_tags=["calm"],
    )
    assert m["merged"] is False
    assert m["user_id"] == "alice"
    assert m["content"] == "I drink green tea every morning"
    assert (m["memory_type"], m["source"], m["metadata"]) == ("preference", "chat", METADATA)
    assert m["emotion_tags"] == ["calm"]
    assert "tea" in m["topics"]
    assert m["created_at"] == m["updated_at"] == CLOCK_START
    assert (m["mention_count"], m["frequency_count"], m["recall_count"]) == (1, 1, 0)
    assert m["associated_count"] == 0
    s = m["scores"]
    assert s["frequency"] == pytest.approx(1 / 3)
    assert s["recency"] == pytest.approx(1.0)
    assert s["emotion"] == pytest.approx(0.5)  # an explicit tag weighs explicit_tag_weight
    assert s["impact"] == 0.0
    assert s["importance"] == m["importance_score"] == pytest.approx(weighted_sum(s))
    assert s["level"] == m["importance_level"] == "medium"
    assert s["scored_at"] == CLOCK_START

    again = await fetch(client, "alice", m["id"])
    assert again["metadata"] == METADATA
    assert {k: v for k, v in again.items() if k != "merged"} == {
        k: v for k, v in m.items() if k != "merged"
    }


async def test_emotion_tags_are_cleaned_and_merged_with_detected_ones(
    client: httpx.AsyncClient,
) -> None:
    m = await remember(client, "alice", "这个很急", emotion_tags=["calm", " calm ", "", "急"])
    assert m["emotion_tags"] == ["急", "calm"]
    assert m["scores"]["emotion"] == 1.0


async def test_content_is_stored_stripped(client: httpx.AsyncClient) -> None:
    m = await remember(client, "alice", "  \n my passport expires in May \t ")
    assert m["content"] == "my passport expires in May"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("I drink green tea every morning", "I drink green tea every morning"),
        ("I drink green tea every morning", "  i DRINK green   tea, every morning!! "),
        ("我明天要去北京出差", "我明天要去北京出差。"),
        ("我明天要去北京出差", "我明天，要去北京出差！"),
    ],
)
async def test_saying_it_again_merges(
    client: httpx.AsyncClient, clock: FakeClock, first: str, second: str
) -> None:
    created = await remember(client, "alice", first)
    clock.advance(hours=1)
    merged = await remember(client, "alice", second, status=200)
    assert merged["merged"] is True
    assert merged["id"] == created["id"]
    assert merged["content"] == first
    assert (merged["mention_count"], merged["frequency_count"]) == (2, 2)
    assert merged["last_mentioned_at"] == merged["updated_at"] == "2026-01-01T10:00:00Z"
    assert merged["created_at"] == CLOCK_START
    assert merged["scores"]["frequency"] == pytest.approx(2 / 3)
    assert merged["importance_score"] > created["importance_score"]
    assert [m["id"] for m in await list_all(client, "alice")] == [created["id"]]


async def test_different_statements_do_not_merge(client: httpx.AsyncClient) -> None:
    await remember(client, "alice", "I like tea")
    other = await remember(client, "alice", "I like green tea with jasmine flowers")
    assert other["merged"] is False
    assert len(await list_all(client, "alice")) == 2


async def test_created_at_with_timezone_is_kept(client: httpx.AsyncClient) -> None:
    m = await remember(
        client, "alice", "We moved to Lisbon", created_at="2025-12-02T08:00:00+08:00"
    )
    assert m["created_at"] == "2025-12-02T00:00:00Z"
    assert m["updated_at"] == CLOCK_START
    days = 30 + 9 / 24  # 2025-12-02T00:00Z -> 2026-01-01T09:00Z
    assert m["scores"]["recency"] == pytest.approx(0.5 ** (days / 30), rel=1e-9)
    assert (await fetch(client, "alice", m["id"]))["created_at"] == "2025-12-02T00:00:00Z"


async def test_naive_created_at_is_rejected(client: httpx.AsyncClient) -> None:
    resp = await client.post(URL, json={"content": "We moved", "created_at": "2025-12-02T08:00:00"})
    assert_error(resp, 422, "invalid_input")
    assert await total_memories(client) == 0


async def test_batch_creates_and_merges_in_order(client: httpx.AsyncClient) -> None:
    items = [
        {"content": "Buy oat milk", "memory_type": "todo"},
        {"content": "My dentist is Dr. Rossi", "memory_type": "fact", "metadata": {"n": 1}},
        {"content": "buy OAT milk!"},
    ]
    out = body(await client.post(f"{URL}/batch", json={"items": items}), 200)
    assert (out["created"], out["merged"]) == (2, 1)
    first, second, third = out["items"]
    assert [first["merged"], second["merged"], third["merged"]] == [False, False, True]
    assert [first["content"], second["content"]] == ["Buy oat milk", "My dentist is Dr. Rossi"]
    assert (second["memory_type"], second["metadata"]) == ("fact", {"n": 1})
    assert third["id"] == first["id"]
    assert third["mention_count"] == 2
    stored = await list_all(client, "alice")
    assert sorted(m["id"] for m in stored) == sorted([first["id"], second["id"]])


@pytest.mark.parametrize(
    "bad",
    [
        {"content": ""},
        {"content": "fine", "created_at": "2025-01-01T00:00:00"},
        {"content": "fine", "colour": "red"},
        {"content": "fine", "memory_type": "secret"},
        {"content": "x" * 8001},
    ],
    ids=["empty", "naive-created-at", "unknown-field", "unknown-type", "too-long"],
)
async def test_batch_with_one_invalid_item_writes_nothing(
    client: httpx.AsyncClient, bad: dict[str, Any]
) -> None:
    items = [{"content": "Buy oat milk"}, {"content": "Call mum on Sunday"}, bad]
    assert_error(await client.post(f"{URL}/batch", json={"items": items}), 422, "invalid_input")
    assert await list_all(client, "alice") == []
    assert await total_memories(client) == 0


@pytest.mark.parametrize("items", [[], [{"content": "x"}] * 1001])
async def test_batch_size_limits(client: httpx.AsyncClient, items: list[dict[str, str]]) -> None:
    assert_error(await client.post(f"{URL}/batch", json={"items": items}), 422, "invalid_input")
    assert await total_memories(client) == 0


async def test_patch_content_reanalyses(client: httpx.AsyncClient, clock: FakeClock) -> None:
    m = await remember(client, "alice", "I bought a new bicycle yesterday")
    assert (m["emotion_tags"], m["scores"]["emotion"]) == ([], 0.0)
    clock.advance(hours=1)
    patched = body(
        await client.patch(f"{URL}/{m['id']}", json={"content": "我很担心明天的考试"}), 200
    )
    assert patched["id"] == m["id"]
    assert patched["content"] == "我很担心明天的考试"
    assert patched["emotion_tags"] == ["担心"]
    assert "考试" in patched["topics"]
    assert "bicycl" not in patched["topics"]
    assert patched["scores"]["emotion"] > 0.6
    assert patched["importance_score"] > m["importance_score"]
    assert patched["created_at"] == CLOCK_START
    assert patched["updated_at"] == "2026-01-01T10:00:00Z"
    assert await fetch(client, "alice", m["id"]) == patched
    # The search index follows the new content.
    assert await recall(client, "alice", "bicycle", track=False) == []
    assert [h["memory"]["id"] for h in await recall(client, "alice", "考试", track=False)] == [
        m["id"]
    ]


async def test_patch_other_fields_keeps_content(client: httpx.AsyncClient) -> None:
    m = await remember(client, "alice", "这个很急，很重要", metadata={"a": 1})
    patch = {"memory_type": "todo", "source": "email", "metadata": {"b": [1, {"c": "d"}]}}
    patched = body(await client.patch(f"{URL}/{m['id']}", json=patch), 200)
    assert (patched["memory_type"], patched["source"]) == ("todo", "email")
    assert patched["metadata"] == {"b": [1, {"c": "d"}]}
    assert patched["content"] == m["content"]
    assert patched["emotion_tags"] == m["emotion_tags"] == ["急", "很重要"]
    assert patched["importance_score"] == pytest.approx(m["importance_score"])


async def test_patch_to_another_memorys_content_conflicts(client: httpx.AsyncClient) -> None:
    a = await remember(client, "alice", "My sister lives in Berlin now")
    b = await remember(client, "alice", "I bought a new bicycle yesterday")
    patch = {
        "content": "my sister lives in berlin, NOW",
        "memory_type": "goal",
        "metadata": {"x": 1},
    }
    resp = await client.patch(f"{URL}/{b['id']}", json=patch)
    assert str(a["id"]) in assert_error(resp, 409, "duplicate_content")["message"]
    # The whole edit is refused, not just the content.
    assert await fetch(client, "alice", b["id"]) == {**b, "merged": None}
    assert (await fetch(client, "alice", a["id"]))["content"] == a["content"]


async def test_patch_to_own_content_with_other_punctuation_is_fine(
    client: httpx.AsyncClient,
) -> None:
    m = await remember(client, "alice", "My sister lives in Berlin now")
    resp = await client.patch(
        f"{URL}/{m['id']}", json={"content": "My sister lives in Berlin now!"}
    )
    assert body(resp, 200)["content"] == "My sister lives in Berlin now!"


async def test_delete_then_get_is_404(client: httpx.AsyncClient) -> None:
    keep = await remember(client, "alice", "My sister lives in Berlin now")
    gone = await remember(client, "alice", "I bought a new bicycle yesterday")
    resp = await client.delete(f"{URL}/{gone['id']}")
    assert resp.status_code == 204
    assert resp.content == b""
    assert_error(await client.get(f"{URL}/{gone['id']}"), 404, "memory_not_found")
    assert_error(await client.delete(f"{URL}/{gone['id']}"), 404, "memory_not_found")
    assert_error(await client.patch(f"{URL}/{gone['id']}", json={}), 404, "memory_not_found")
    assert [m["id"] for m in await list_all(client, "alice")] == [keep["id"]]
    assert await recall(client, "alice", "bicycle", track=False) == []
    users = body(await client.get("/admin/users"), 200)["items"]
    assert [(u["user_id"], u["memory_count"]) for u in users] == [("alice", 1)]


async def test_missing_memory_is_404(client: httpx.AsyncClient) -> None:
    error = assert_error(await client.get(f"{URL}/{MISSING_ID}"), 404, "memory_not_found")
    assert str(MISSING_ID) in error["message"]


async def test_unknown_route_is_404_not_found(client: httpx.AsyncClient) -> None:
    assert_error(await client.get("/v1/nothing-here"), 404, "not_found")
    assert_error(await client.put(URL, json={}), 405, "method_not_allowed")


async def test_a_refused_write_of_an_unknown_user_leaves_no_user_behind(
    client: httpx.AsyncClient,
) -> None:
    # Every write takes (and for a new user creates) the user's row before it reads the
    # memory; the 404 rolls the row back with everything else.
    await remember(client, "alice", "My sister lives in Berlin now")
    nobody = memories_url("nobody")
    assert_error(await client.delete(f"{nobody}/{MISSING_ID}"), 404, "memory_not_found")
    assert_error(
        await client.patch(f"{nobody}/{MISSING_ID}", json={"content": "x y"}),
        404,
        "memory_not_found",
    )
    users = body(await client.get("/admin/users"), 200)["items"]
    assert [u["user_id"] for u in users] == ["alice"]
