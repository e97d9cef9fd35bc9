"""Fact correction over HTTP: automatic supersede, the flags, supersede/restore, 4xx."""

from __future__ import annotations

import httpx

from tests.api.helpers import (
    MISSING_ID,
    Json,
    assert_error,
    body,
    fetch,
    list_all,
    memories_url,
    recall,
    remember,
)


async def _supersede(
    client: httpx.AsyncClient, user: str, memory_id: int, by: object
) -> httpx.Response:
    return await client.post(f"{memories_url(user)}/{memory_id}/supersede", json={"by": by})


async def _restore(client: httpx.AsyncClient, user: str, memory_id: int) -> httpx.Response:
    return await client.post(f"{memories_url(user)}/{memory_id}/restore")


def _ids(items: list[Json]) -> list[int]:
    return [item["memory"]["id"] if "memory" in item else item["id"] for item in items]


async def test_a_newer_fact_supersedes_the_older(client: httpx.AsyncClient) -> None:
    beijing = await remember(client, "alice", "我住在北京")
    assert (beijing["fact_slot"], beijing["superseded_by_id"]) == ("residence", None)
    shanghai = await remember(client, "alice", "我搬到上海了")
    old = await fetch(client, "alice", beijing["id"])
    assert old["superseded_by_id"] == shanghai["id"]
    assert old["superseded_at"] is not None
    assert _ids(await list_all(client, "alice")) == [shanghai["id"]]
    everything = await list_all(client, "alice", include_superseded="true")
    assert sorted(_ids(everything)) == sorted([beijing["id"], shanghai["id"]])
    # Each statement holds a part of the question, too little for the 0.7 floor: asked
    # with none, the old one is still left out by default, for being superseded.
    current = await recall(client, "alice", "北京 上海 住", min_confidence=0.0)
    assert _ids(current) == [shanghai["id"]]
    marked = await recall(
        client, "alice", "北京 上海 住", include_superseded=True, min_confidence=0.0
    )
    by_id = {hit["memory"]["id"]: hit["memory"]["superseded_by_id"] for hit in marked}
    assert by_id == {beijing["id"]: shanghai["id"], shanghai["id"]: None}


async def test_a_question_worded_like_the_old_fact_gets_the_current_one(
    client: httpx.AsyncClient,
) -> None:
    beijing = await remember(client, "alice", "我住在北京")
    shanghai = await remember(client, "alice", "我搬到上海了")
    hits = await recall(client, "alice", "我住在哪里", explain=True)
    assert _ids(hits) == [shanghai["id"]]
    relevance = hits[0]["explanation"]["relevance"]
    assert relevance["superseded_match"] == beijing["id"]
    assert {t["term"] for t in relevance["matched_terms"]} >= {"住", "~住在"}
    # Reported as used: the answer counts, not the superseded match.
    used = body(
        await client.post("/v1/users/alice/memories/used", json={"ids": [shanghai["id"]]}), 200
    )
    assert used["counted"] == [shanghai["id"]]
    counted_by_recall = int(hits[0]["counted"])
    assert (await fetch(client, "alice", shanghai["id"]))["recall_count"] == 1 + counted_by_recall
    assert (await fetch(client, "alice", beijing["id"]))["recall_count"] == 0


async def test_batch_in_order_and_admin_sees_everything(client: httpx.AsyncClient) -> None:
    items = [{"content": c} for c in ["My manager is Ann", "My new manager is Bo"]]
    stored = body(await client.post(f"{memories_url('bob')}/batch", json={"items": items}), 200)
    ann, bo = stored["items"]
    assert ann["superseded_by_id"] == bo["id"]
    assert bo["superseded_by_id"] is None
    page = body(await client.get("/admin/users/bob/memories"), 200)
    assert {m["id"]: m["superseded_by_id"] for m in page["items"]} == {
        ann["id"]: bo["id"],
        bo["id"]: None,
    }
    inspected = body(await client.get(f"/admin/memories/{ann['id']}"), 200)
    assert inspected["memory"]["superseded_by_id"] == bo["id"]


async def test_explicit_supersede_and_restore(client: httpx.AsyncClient) -> None:
    old = await remember(client, "carol", "the gym opens at 7")
    new = await remember(client, "carol", "the gym now opens at 6 on weekdays")
    done = body(await _supersede(client, "carol", old["id"], new["id"]), 200)
    assert done["superseded_by_id"] == new["id"]
    assert _ids(await list_all(client, "carol")) == [new["id"]]
    assert _ids(await recall(client, "carol", "gym opens")) == [new["id"]]
    restored = body(await _restore(client, "carol", old["id"]), 200)
    assert (restored["superseded_by_id"], restored["superseded_at"]) == (None, None)
    assert sorted(_ids(await list_all(client, "carol"))) == sorted([old["id"], new["id"]])


async def test_deleting_the_newer_memory_restores_the_older(client: httpx.AsyncClient) -> None:
    paris = await remember(client, "dave", "I live in Paris")
    rome = await remember(client, "dave", "I moved to Rome")
    assert (await fetch(client, "dave", paris["id"]))["superseded_by_id"] == rome["id"]
    assert (await client.delete(f"{memories_url('dave')}/{rome['id']}")).status_code == 204
    assert (await fetch(client, "dave", paris["id"]))["superseded_by_id"] is None
    assert _ids(await recall(client, "dave", "where do I live Paris")) == [paris["id"]]


async def test_bad_supersede_requests(client: httpx.AsyncClient) -> None:
    a = await remember(client, "erin", "note one about the garden")
    b = await remember(client, "erin", "note two about the kitchen")
    assert_error(await _supersede(client, "erin", a["id"], a["id"]), 422, "invalid_input")
    assert_error(await _supersede(client, "erin", a["id"], MISSING_ID), 404, "memory_not_found")
    assert_error(await _supersede(client, "erin", MISSING_ID, a["id"]), 404, "memory_not_found")
    assert_error(await _supersede(client, "erin", a["id"], "two"), 422, "invalid_input")
    assert_error(await _supersede(client, "erin", a["id"], 0), 422, "invalid_input")
    resp = await client.post(f"{memories_url('erin')}/{a['id']}/supersede", json={})
    assert_error(resp, 422, "invalid_input")
    resp = await client.post(
        f"{memories_url('erin')}/{a['id']}/supersede", json={"by": b["id"], "extra": 1}
    )
    assert_error(resp, 422, "invalid_input")
    body(await _supersede(client, "erin", a["id"], b["id"]), 200)
    assert_error(await _supersede(client, "erin", b["id"], a["id"]), 409, "supersede_cycle")
    assert_error(await _restore(client, "erin", b["id"]), 409, "not_superseded")
    assert_error(await _restore(client, "erin", MISSING_ID), 404, "memory_not_found")
    # Nothing half-written: the refused cycle left both links as they were.
    assert (await fetch(client, "erin", b["id"]))["superseded_by_id"] is None
    assert (await fetch(client, "erin", a["id"]))["superseded_by_id"] == b["id"]


async def test_one_user_never_touches_anothers_facts(client: httpx.AsyncClient) -> None:
    mine = await remember(client, "frank", "I live in Oslo")
    theirs = await remember(client, "grace", "I moved to Bergen")
    assert (await fetch(client, "frank", mine["id"]))["superseded_by_id"] is None
    for user, memory_id, by in [
        ("frank", mine["id"], theirs["id"]),
        ("grace", mine["id"], theirs["id"]),
        ("grace", theirs["id"], mine["id"]),
    ]:
        assert_error(await _supersede(client, user, memory_id, by), 404, "memory_not_found")
    assert_error(await _restore(client, "grace", mine["id"]), 404, "memory_not_found")
    assert _ids(await recall(client, "grace", "Oslo", include_superseded=True)) == []
    assert (await fetch(client, "frank", mine["id"]))["superseded_by_id"] is None
