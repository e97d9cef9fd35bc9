"""Whose words a memory holds (``role``): written through REST and the batch route,
returned, refused when unknown, and kept apart from the other role's words when merging
and when correcting facts."""

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
BATCH = f"{URL}/batch"
WORRY = "我很担心下周的考试"
WORRY_AGAIN = "我很担心下周的考试啊"  # a near-duplicate of WORRY (services/remembering)


async def test_role_defaults_to_user_and_is_returned(client: httpx.AsyncClient) -> None:
    mine = await remember(client, "alice", "I drink green tea every morning")
    reply = await remember(
        client, "alice", "Green tea sounds calming", role="assistant", conversation_id="c1"
    )
    assert (mine["role"], reply["role"]) == ("user", "assistant")
    assert (await fetch(client, "alice", reply["id"]))["role"] == "assistant"
    said = await remember(client, "alice", "Noted", role="user")
    assert said["role"] == "user"
    roles = {m["id"]: m["role"] for m in await list_all(client, "alice")}
    assert roles == {mine["id"]: "user", reply["id"]: "assistant", said["id"]: "user"}


async def test_batch_writes_each_items_role(client: httpx.AsyncClient) -> None:
    items = [
        {"content": "I adopted a cat named Miso", "conversation_id": "c1"},
        {"content": "What a lovely name for a cat", "conversation_id": "c1", "role": "assistant"},
        {"content": "She is three months old", "conversation_id": "c1", "role": "user"},
    ]
    out = body(await client.post(BATCH, json={"items": items}), 200)
    assert (out["created"], out["merged"]) == (3, 0)
    assert [m["role"] for m in out["items"]] == ["user", "assistant", "user"]


@pytest.mark.parametrize("role", ["system", "User", "", None, 1])
async def test_an_unknown_role_is_422_and_writes_nothing(
    client: httpx.AsyncClient, role: Any
) -> None:
    error = assert_error(
        await client.post(URL, json={"content": "ok", "role": role}), 422, "invalid_input"
    )
    assert "role" in error["message"]
    assert any("role" in d["loc"] for d in error["details"])
    items = [{"content": "fine"}, {"content": "not fine", "role": role}]
    error = assert_error(await client.post(BATCH, json={"items": items}), 422, "invalid_input")
    assert any("role" in d["loc"] for d in error["details"])
    assert await total_memories(client) == 0


@pytest.mark.parametrize("echo", [WORRY, WORRY_AGAIN], ids=["exact", "near"])
async def test_the_assistant_echoing_the_person_does_not_merge_into_it(
    client: httpx.AsyncClient, echo: str
) -> None:
    mine = await remember(client, "alice", WORRY)
    reply = await remember(client, "alice", echo, role="assistant", status=201)
    assert reply["merged"] is False
    assert reply["id"] != mine["id"]
    assert reply["mention_count"] == 1
    assert (await fetch(client, "alice", mine["id"]))["mention_count"] == 1
    # The person saying it again still merges into their own words, not the echo.
    again = await remember(client, "alice", echo, status=200)
    assert (again["id"], again["mention_count"]) == (mine["id"], 2)
    assert (await fetch(client, "alice", reply["id"]))["mention_count"] == 1


async def test_the_person_repeating_the_assistant_does_not_merge_into_it(
    client: httpx.AsyncClient,
) -> None:
    reply = await remember(client, "alice", WORRY, role="assistant")
    mine = await remember(client, "alice", WORRY_AGAIN, status=201)
    assert mine["id"] != reply["id"]
    assert mine["role"] == "user"
    echo = await remember(client, "alice", WORRY, role="assistant", status=200)
    assert (echo["id"], echo["mention_count"]) == (reply["id"], 2)


async def test_a_batch_keeps_the_roles_apart_when_merging(client: httpx.AsyncClient) -> None:
    items = [
        {"content": WORRY},
        {"content": WORRY, "role": "assistant"},
        {"content": WORRY_AGAIN, "role": "assistant"},
        {"content": WORRY_AGAIN},
    ]
    out = body(await client.post(BATCH, json={"items": items}), 200)
    assert (out["created"], out["merged"]) == (2, 2)
    ids = [m["id"] for m in out["items"]]
    assert ids[0] == ids[3]
    assert ids[1] == ids[2]
    assert ids[0] != ids[1]
    mine, reply = await fetch(client, "alice", ids[0]), await fetch(client, "alice", ids[1])
    assert (mine["role"], mine["mention_count"]) == ("user", 2)
    assert (reply["role"], reply["mention_count"]) == ("assistant", 2)


async def test_an_assistant_turn_states_no_fact(client: httpx.AsyncClient) -> None:
    beijing = await remember(client, "alice", "我住在北京")
    assert beijing["fact_slot"] == "residence"
    reply = await remember(client, "alice", "我搬到上海了", role="assistant")
    assert (reply["fact_slot"], reply["superseded_by_id"]) == (None, None)
    assert (await fetch(client, "alice", beijing["id"]))["superseded_by_id"] is None
    # Editing the assistant's words does not make them a fact either.
    patched = body(await client.patch(f"{URL}/{reply['id']}", json={"content": "我住在上海"}), 200)
    assert patched["fact_slot"] is None
    assert (await fetch(client, "alice", beijing["id"]))["superseded_by_id"] is None
    # The person saying it is a fact, and supersedes the old one.
    shanghai = await remember(client, "alice", "我搬到上海了")
    assert shanghai["fact_slot"] == "residence"
    assert (await fetch(client, "alice", beijing["id"]))["superseded_by_id"] == shanghai["id"]


async def test_editing_to_words_the_other_role_holds_is_allowed(
    client: httpx.AsyncClient,
) -> None:
    """The content key is per role: an assistant memory may hold the person's words."""
    await remember(client, "alice", "I live in Oslo")
    reply = await remember(client, "alice", "Oslo is lovely", role="assistant")
    patched = body(
        await client.patch(f"{URL}/{reply['id']}", json={"content": "I live in Oslo"}), 200
    )
    assert (patched["content"], patched["role"]) == ("I live in Oslo", "assistant")
    other = await remember(client, "alice", "Bergen is rainy", role="assistant")
    resp = await client.patch(f"{URL}/{other['id']}", json={"content": "I live in Oslo"})
    assert_error(resp, 409, "duplicate_content")
