"""Input validation: every bad request is a 422 ``invalid_input`` and writes nothing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api.helpers import (
    assert_error,
    body,
    fetch,
    list_all,
    memories_url,
    remember,
    total_memories,
)

URL = memories_url("alice")


async def assert_nothing_written(client: httpx.AsyncClient) -> None:
    assert await total_memories(client) == 0
    assert await list_all(client, "alice") == []
    assert body(await client.get("/admin/users"), 200)["items"] == []


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"content": ""}, "content"),
        ({"content": "   \n\t "}, "content"),
        ({"content": "　"}, "content"),  # an ideographic space is whitespace too
        ({"content": "a" * 8001}, "content"),
        ({}, "content"),
        ({"content": None}, "content"),
        ({"content": 42}, "content"),
        ({"content": "ok", "memory_type": "secret"}, "memory_type"),
        ({"content": "ok", "colour": "red"}, "colour"),
        ({"content": "ok", "metadata": [1, 2]}, "metadata"),
        ({"content": "ok", "emotion_tags": "urgent"}, "emotion_tags"),
        ({"content": "ok", "source": "s" * 129}, "source"),
        ({"content": "ok", "created_at": "yesterday"}, "created_at"),
    ],
)
async def test_bad_memory_body_is_422(
    client: httpx.AsyncClient, payload: dict[str, Any], field: str
) -> None:
    error = assert_error(await client.post(URL, json=payload), 422, "invalid_input")
    assert field in error["message"]
    assert any(field in d["loc"] for d in error["details"])
    await assert_nothing_written(client)


async def test_content_limit_is_8000_characters(client: httpx.AsyncClient) -> None:
    text = ("word " * 1600)[:7999] + "中"
    assert len(text) == 8000
    m = await remember(client, "alice", text)
    assert len(m["content"]) == 8000
    assert_error(await client.post(URL, json={"content": text + "x"}), 422, "invalid_input")
    assert await total_memories(client) == 1


@pytest.mark.parametrize(
    ("metadata", "ok"),
    [
        ({"k": "a" * 4088}, True),  # {"k":"…"} is exactly 4096 bytes
        ({"k": "a" * 4089}, False),
        ({"k": "中" * 1362}, True),  # 4094 bytes: UTF-8 bytes count, not characters
        ({"k": "中" * 1363}, False),
    ],
)
async def test_metadata_limit_is_4_kb(
    client: httpx.AsyncClient, metadata: dict[str, str], ok: bool
) -> None:
    resp = await client.post(URL, json={"content": "note", "metadata": metadata})
    if ok:
        assert body(resp, 201)["metadata"] == metadata
        return
    assert "metadata" in assert_error(resp, 422, "invalid_input")["message"]
    await assert_nothing_written(client)


@pytest.mark.parametrize(
    "tags", [[f"t{i}" for i in range(21)], ["x" * 33]], ids=["21-tags", "long-tag"]
)
async def test_emotion_tag_limits(client: httpx.AsyncClient, tags: list[str]) -> None:
    resp = await client.post(URL, json={"content": "note", "emotion_tags": tags})
    assert_error(resp, 422, "invalid_input")
    await assert_nothing_written(client)


async def test_invalid_json_is_422(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        URL, content=b'{"content": "x"', headers={"content-type": "application/json"}
    )
    assert_error(resp, 422, "invalid_input")
    assert_error(await client.post(URL, json=["content"]), 422, "invalid_input")
    await assert_nothing_written(client)


@pytest.mark.parametrize("user", ["bad user", "a" * 129, "ümlaut", "semi;colon"])
async def test_bad_user_id_is_422(client: httpx.AsyncClient, user: str) -> None:
    for resp in (
        await client.post(memories_url(user), json={"content": "hello"}),
        await client.get(memories_url(user)),
        await client.post(f"/v1/users/{user}/recall", json={"query": "hello"}),
        await client.get(f"/v1/users/{user}/escalations"),
        await client.get(f"/admin/users/{user}/memories"),
    ):
        error = assert_error(resp, 422, "invalid_input")
        assert "user_id" in error["message"]
    await assert_nothing_written(client)


async def test_user_id_with_encoded_slash_is_rejected(client: httpx.AsyncClient) -> None:
    # %2F is decoded before routing, so "a/b" never reaches a route: 404 not_found.
    resp = await client.post("/v1/users/a%2Fb/memories", json={"content": "hello"})
    assert_error(resp, 404, "not_found")
    await assert_nothing_written(client)


async def test_longest_user_id_is_accepted(client: httpx.AsyncClient) -> None:
    user = "u" * 120 + "_.:@-A9z"
    assert len(user) == 128
    m = await remember(client, user, "hello")
    assert m["user_id"] == user
    assert (await fetch(client, user, m["id"]))["content"] == "hello"


@pytest.mark.parametrize(
    "payload",
    [
        {"query": "tea", "top_k": 0},
        {"query": "tea", "top_k": 101},
        {"query": "tea", "top_k": "many"},
        {"query": "tea", "colour": "red"},
        {"query": "tea", "types": ["secret"]},
        {"query": "t" * 8001},
    ],
)
async def test_bad_recall_body_is_422(client: httpx.AsyncClient, payload: dict[str, Any]) -> None:
    m = await remember(client, "alice", "I drink green tea every morning")
    resp = await client.post("/v1/users/alice/recall", json=payload)
    assert_error(resp, 422, "invalid_input")
    assert (await fetch(client, "alice", m["id"]))["recall_count"] == 0


@pytest.mark.parametrize("top_k", [1, 100])
async def test_top_k_bounds_are_accepted(client: httpx.AsyncClient, top_k: int) -> None:
    await remember(client, "alice", "I drink green tea every morning")
    resp = await client.post("/v1/users/alice/recall", json={"query": "tea", "top_k": top_k})
    assert len(body(resp, 200)["results"]) == 1


@pytest.mark.parametrize(
    "payload",
    [
        {"content": ""},
        {"content": "  "},
        {"content": "x" * 8001},
        {"memory_type": "secret"},
        {"metadata": {"k": "a" * 5000}},
        {"emotion_tags": ["x" * 33]},
        {"colour": "red"},
        {"id": 5},
    ],
)
async def test_bad_patch_is_422_and_changes_nothing(
    client: httpx.AsyncClient, payload: dict[str, Any]
) -> None:
    m = await remember(client, "alice", "I drink green tea every morning", metadata={"a": 1})
    resp = await client.patch(f"{URL}/{m['id']}", json=payload)
    assert_error(resp, 422, "invalid_input")
    assert await fetch(client, "alice", m["id"]) == {**m, "merged": None}


@pytest.mark.parametrize("memory_id", ["abc", "1.5"])
async def test_non_integer_memory_id_is_422(client: httpx.AsyncClient, memory_id: str) -> None:
    assert_error(await client.get(f"{URL}/{memory_id}"), 422, "invalid_input")
    assert_error(await client.delete(f"{URL}/{memory_id}"), 422, "invalid_input")


async def test_a_batch_over_a_million_characters_is_refused_whole(
    client: httpx.AsyncClient,
) -> None:
    item = {"content": "x" * 8000}
    response = await client.post("/v1/users/big/memories/batch", json={"items": [item] * 126})
    assert response.status_code == 422
    assert "1000000 characters" in response.json()["error"]["message"]
    assert (await client.get("/v1/users/big/memories")).json()["items"] == []
