"""One user never sees, changes or is ranked by another user's memories."""

from __future__ import annotations

import httpx
import pytest

from tests.api.helpers import (
    Json,
    assert_error,
    body,
    fetch,
    list_all,
    memories_url,
    recall,
    remember,
)

ALICE, BOB = memories_url("alice"), memories_url("bob")
SECRET = "我的银行卡密码是一二三四，这个很重要"


async def alice_secret(client: httpx.AsyncClient) -> Json:
    secret = await remember(client, "alice", SECRET, metadata={"pin": 1234})
    for _ in range(2):  # make it high so it is escalated too
        await remember(client, "alice", SECRET, status=200)
    stored = await fetch(client, "alice", secret["id"])
    assert stored["escalated_at"] is not None
    return stored


async def test_bob_cannot_read_edit_delete_or_link_alices_memory(
    client: httpx.AsyncClient,
) -> None:
    secret = await alice_secret(client)
    mine = await remember(client, "bob", "Bob likes chess")
    sid = secret["id"]
    for resp in (
        await client.get(f"{BOB}/{sid}"),
        await client.patch(f"{BOB}/{sid}", json={"content": "hacked", "metadata": {}}),
        await client.delete(f"{BOB}/{sid}"),
        await client.get(f"{BOB}/{sid}/links"),
        await client.post(f"{BOB}/{sid}/links", json={"target_id": mine["id"]}),
        await client.post(f"{BOB}/{mine['id']}/links", json={"target_id": sid}),
        await client.post(f"/v1/users/bob/escalations/{sid}/ack"),
    ):
        error = assert_error(resp, 404, "memory_not_found")
        assert SECRET not in error["message"]
    # Exactly as before: not edited, not deleted, not linked, not acknowledged.
    assert await fetch(client, "alice", sid) == secret
    assert body(await client.get(f"{ALICE}/{sid}/links"), 200) == []
    escalations = body(await client.get("/v1/users/alice/escalations"), 200)
    assert [m["id"] for m in escalations] == [sid]
    assert (await fetch(client, "bob", mine["id"]))["associated_count"] == 0


async def test_bob_sees_none_of_alices_memories(client: httpx.AsyncClient) -> None:
    await alice_secret(client)
    assert await list_all(client, "bob") == []
    assert await list_all(client, "bob", order="recent") == []
    assert await recall(client, "bob", "银行卡密码") == []
    assert await recall(client, "bob", "") == []
    assert body(await client.get("/v1/users/bob/escalations"), 200) == []
    query = {"include_acknowledged": "true"}
    assert body(await client.get("/v1/users/bob/escalations", params=query), 200) == []


async def test_bobs_recall_only_returns_bobs_memories(client: httpx.AsyncClient) -> None:
    secret = await alice_secret(client)
    await remember(client, "alice", "银行卡密码要记得改")
    bobs = await remember(client, "bob", "我的银行卡丢了")
    for query in ("银行卡密码", "银行卡", "", "很重要"):
        results = await recall(client, "bob", query, top_k=100)
        assert {h["memory"]["user_id"] for h in results} <= {"bob"}
        assert secret["id"] not in [h["memory"]["id"] for h in results]
    assert [h["memory"]["id"] for h in await recall(client, "bob", "银行卡")] == [bobs["id"]]
    # Bob's recalls did not count on Alice's memory.
    assert (await fetch(client, "alice", secret["id"]))["recall_count"] == 0


async def test_other_users_do_not_change_bobs_relevance(client: httpx.AsyncClient) -> None:
    tea = await remember(client, "bob", "I drink green tea every morning")
    await remember(client, "bob", "Chess club meets on Friday")
    # The chess memory comes along as the tea memory's neighbour (session continuity).
    before, *_ = await recall(client, "bob", "green tea", explain=True, track=False)
    for n in range(5):
        await remember(client, "alice", f"Green tea number {n} is the best tea")
    results = await recall(client, "bob", "green tea", explain=True, track=False)
    assert {h["memory"]["user_id"] for h in results} == {"bob"}
    after = results[0]
    assert before["memory"]["id"] == after["memory"]["id"] == tea["id"]
    assert after["explanation"]["relevance"]["bm25"] == pytest.approx(
        before["explanation"]["relevance"]["bm25"], rel=1e-12
    )


async def test_same_content_for_two_users_does_not_merge(client: httpx.AsyncClient) -> None:
    secret = await alice_secret(client)
    bobs = await remember(client, "bob", SECRET)
    assert bobs["merged"] is False
    assert bobs["id"] != secret["id"]
    assert (bobs["mention_count"], bobs["metadata"]) == (1, {})
    assert (await fetch(client, "alice", secret["id"]))["mention_count"] == 3
    # Nor do Bob's edits collide with Alice's content.
    other = await remember(client, "bob", "Bob likes chess")
    resp = await client.patch(f"{BOB}/{other['id']}", json={"content": "Alice likes chess"})
    assert body(resp, 200)["content"] == "Alice likes chess"
    await remember(client, "alice", "Bob likes chess")
    assert len(await list_all(client, "alice")) == 2


async def test_admin_lists_users_separately(client: httpx.AsyncClient) -> None:
    secret = await alice_secret(client)
    await remember(client, "bob", "Bob likes chess")
    bob_view = body(await client.get("/admin/users/bob/memories"), 200)["items"]
    assert [m["content"] for m in bob_view] == ["Bob likes chess"]
    alice_view = body(await client.get("/admin/users/alice/memories"), 200)["items"]
    assert [m["id"] for m in alice_view] == [secret["id"]]
