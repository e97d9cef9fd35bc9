"""Operator views, rescoring runs, score decay over time and escalations."""

from __future__ import annotations

import httpx
import pytest

from tests.api.helpers import (
    CLOCK_START,
    MISSING_ID,
    WEIGHTS,
    Json,
    assert_error,
    body,
    fetch,
    recall,
    remember,
    weighted_sum,
)
from tests.conftest import FakeClock

URGENT = "这个很急，很重要"


async def escalate(client: httpx.AsyncClient, user: str) -> Json:
    first = await remember(client, user, URGENT)
    assert (first["importance_level"], first["escalated_at"]) == ("medium", None)
    await remember(client, user, URGENT, status=200)
    third = await remember(client, user, URGENT, status=200)
    assert third["mention_count"] == 3
    assert third["importance_level"] == "high"
    assert third["importance_score"] >= 0.7
    assert third["escalated_at"] == CLOCK_START
    return third


async def rescore(client: httpx.AsyncClient, user: str | None = None) -> Json:
    payload = {"user_id": user} if user else None
    run: Json = body(await client.post("/admin/jobs/rescore", json=payload), 200)
    return run


async def test_users_with_counts_and_levels(client: httpx.AsyncClient) -> None:
    await escalate(client, "alice")
    await remember(client, "alice", "I drink green tea every morning")
    await remember(client, "bob", "Bob likes chess")
    users = body(await client.get("/admin/users"), 200)
    assert users["next_cursor"] is None
    assert [(u["user_id"], u["memory_count"], u["levels"]) for u in users["items"]] == [
        ("alice", 2, {"high": 1, "low": 1}),
        ("bob", 1, {"low": 1}),
    ]
    assert users["items"][0]["updated_at"] == CLOCK_START
    first = body(await client.get("/admin/users", params={"limit": 1}), 200)
    assert ([u["user_id"] for u in first["items"]], first["next_cursor"]) == (["alice"], "alice")
    rest = body(await client.get("/admin/users", params={"limit": 1, "cursor": "alice"}), 200)
    assert ([u["user_id"] for u in rest["items"]], rest["next_cursor"]) == (["bob"], None)


async def test_user_memories_show_every_component(client: httpx.AsyncClient) -> None:
    urgent = await escalate(client, "alice")
    tea = await remember(client, "alice", "I drink green tea every morning", memory_type="fact")
    page = body(await client.get("/admin/users/alice/memories"), 200)
    assert [m["id"] for m in page["items"]] == [urgent["id"], tea["id"]]
    for m in page["items"]:
        assert m["importance_score"] == pytest.approx(weighted_sum(m["scores"]), abs=1e-9)
    facts = body(await client.get("/admin/users/alice/memories", params={"type": "fact"}), 200)
    assert [m["id"] for m in facts["items"]] == [tea["id"]]
    high = body(await client.get("/admin/users/alice/memories", params={"level": "high"}), 200)
    assert [m["id"] for m in high["items"]] == [urgent["id"]]


async def test_memory_inspection(client: httpx.AsyncClient) -> None:
    urgent = await escalate(client, "alice")
    other = await remember(client, "alice", "I drink green tea every morning")
    linked = await client.post(
        f"/v1/users/alice/memories/{urgent['id']}/links", json={"target_id": other["id"]}
    )
    body(linked, 201)
    seen = body(await client.get(f"/admin/memories/{urgent['id']}"), 200)
    m = seen["memory"]
    assert (m["id"], m["user_id"], m["content"]) == (urgent["id"], "alice", URGENT)
    contributions = seen["contributions"]
    assert set(contributions) == set(WEIGHTS)
    for name, weight in WEIGHTS.items():
        assert contributions[name] == pytest.approx(m["scores"][name] * weight)
    assert sum(contributions.values()) == pytest.approx(m["importance_score"], abs=1e-9)
    assert [(x["memory_id_a"], x["memory_id_b"], x["kind"]) for x in seen["links"]] == [
        (urgent["id"], other["id"], "explicit")
    ]
    history = seen["history"]
    assert history, "creation must leave a score snapshot"
    assert history[-1]["reason"] == "write"
    assert {h["reason"] for h in history} >= {"write", "mention"}
    assert history[0]["importance_level"] == "high"
    for h in history:
        assert h["scored_at"] == CLOCK_START
    assert_error(await client.get(f"/admin/memories/{MISSING_ID}"), 404, "memory_not_found")


async def test_history_starts_with_the_write(client: httpx.AsyncClient) -> None:
    m = await remember(client, "bob", "Bob likes chess")
    (snapshot,) = body(await client.get(f"/admin/memories/{m['id']}"), 200)["history"]
    assert snapshot["reason"] == "write"
    assert snapshot["importance_score"] == pytest.approx(m["importance_score"])
    assert snapshot["recency_score"] == 1.0


async def test_rescore_everyone_and_one_user(client: httpx.AsyncClient, clock: FakeClock) -> None:
    await escalate(client, "alice")
    await remember(client, "alice", "I drink green tea every morning")
    await remember(client, "bob", "Bob likes chess")
    clock.advance(minutes=5)
    everyone = await rescore(client)
    assert everyone["status"] == "succeeded"
    assert (everyone["rows"], everyone["user_id"], everyone["error"]) == (3, None, None)
    assert (everyone["job"], everyone["trigger"]) == ("rescore", "admin")
    assert everyone["started_at"] == everyone["finished_at"] == "2026-01-01T09:05:00Z"
    assert everyone["escalations"] == 0  # already high before the run
    clock.advance(minutes=5)
    one = await rescore(client, "bob")
    assert (one["status"], one["rows"], one["user_id"]) == ("succeeded", 1, "bob")
    nobody = await rescore(client, "nobody")
    assert (nobody["status"], nobody["rows"]) == ("succeeded", 0)
    jobs = body(await client.get("/admin/jobs"), 200)
    assert [j["id"] for j in jobs] == [nobody["id"], one["id"], everyone["id"]]
    assert jobs[1] == one
    assert [j["id"] for j in body(await client.get("/admin/jobs", params={"limit": 1}), 200)] == [
        nobody["id"]
    ]
    bad = await client.post("/admin/jobs/rescore", json={"user_id": "bad user"})
    assert_error(bad, 422, "invalid_input")


async def test_scores_decay_after_sixty_days(client: httpx.AsyncClient, clock: FakeClock) -> None:
    plain = await remember(client, "alice", "I bought a new bicycle yesterday")
    worried = await remember(client, "alice", "我很担心明天的考试")
    bobs = await remember(client, "bob", "Bob likes chess")
    assert plain["scores"]["emotion"] == 0.0
    assert worried["scores"]["emotion"] >= 0.5
    clock.advance(days=60)
    run = await rescore(client, "alice")
    assert (run["status"], run["rows"]) == ("succeeded", 2)
    after = await fetch(client, "alice", plain["id"])
    s = after["scores"]
    assert s["recency"] == pytest.approx(0.25, rel=1e-6)  # two 30-day half-lives
    assert s["frequency"] == pytest.approx(1 / 3 * 0.5 ** (60 / 7), rel=1e-6)
    assert after["importance_score"] < plain["importance_score"]
    assert after["importance_score"] == pytest.approx(weighted_sum(s), abs=1e-9)
    assert s["scored_at"] == "2026-03-02T09:00:00Z"
    # Emotion-tagged memories keep a recency floor of 0.7.
    assert (await fetch(client, "alice", worried["id"]))["scores"]["recency"] == pytest.approx(0.7)
    # Bob was not in scope: untouched until his own rescoring.
    untouched = await fetch(client, "bob", bobs["id"])
    assert (untouched["scores"]["recency"], untouched["scores"]["scored_at"]) == (1.0, CLOCK_START)
    history = body(await client.get(f"/admin/memories/{plain['id']}"), 200)["history"]
    assert [h["reason"] for h in history] == ["rescore", "write"]
    assert history[0]["recency_score"] == pytest.approx(0.25, rel=1e-6)


async def test_stats(client: httpx.AsyncClient, clock: FakeClock) -> None:
    empty = body(await client.get("/admin/stats"), 200)
    assert empty["users"] == empty["memories"] == 0
    assert empty["last_rescore"] is None
    urgent_id = (await escalate(client, "alice"))["id"]
    tea = await remember(client, "bob", "I drink green tea every morning")
    await client.post("/v1/users/bob/recall", json={"query": "green tea every morning"})
    clock.advance(hours=1)
    run = await rescore(client)
    stats = body(await client.get("/admin/stats"), 200)
    assert (stats["users"], stats["memories"]) == (2, 2)
    assert (stats["mentions"], stats["recalls"]) == (4, 1)
    assert stats["levels"] == {"high": 1, "medium": 1}  # one recall lifted the tea to medium
    urgent = await fetch(client, "alice", urgent_id)
    bob_tea = await fetch(client, "bob", tea["id"])
    mean = (urgent["importance_score"] + bob_tea["importance_score"]) / 2
    assert stats["mean_importance"] == pytest.approx(mean)
    assert stats["last_rescore"] == {
        "status": "succeeded",
        "started_at": run["started_at"],
        "finished_at": run["finished_at"],
        "rows": 2,
        "failures": 0,
    }


async def escalations(client: httpx.AsyncClient, user: str, **params: str) -> list[Json]:
    found: list[Json] = body(await client.get(f"/v1/users/{user}/escalations", params=params), 200)
    return found


async def test_escalation_and_acknowledgement(client: httpx.AsyncClient, clock: FakeClock) -> None:
    await remember(client, "alice", "I drink green tea every morning")
    assert await escalations(client, "alice") == []
    urgent = await escalate(client, "alice")
    listed = await escalations(client, "alice")
    assert [m["id"] for m in listed] == [urgent["id"]]
    assert listed[0]["escalated_at"] == CLOCK_START
    acked = body(await client.post(f"/v1/users/alice/escalations/{urgent['id']}/ack"), 200)
    assert acked["id"] == urgent["id"]
    assert await escalations(client, "alice") == []
    every = await escalations(client, "alice", include_acknowledged="true")
    assert [m["id"] for m in every] == [urgent["id"]]
    # Still high after a later rescoring: the acknowledgement sticks.
    clock.advance(hours=1)
    assert (await rescore(client))["rows"] == 2
    assert (await fetch(client, "alice", urgent["id"]))["importance_level"] == "high"
    assert await escalations(client, "alice") == []


async def test_recalls_count_towards_escalation(client: httpx.AsyncClient) -> None:
    await remember(client, "alice", URGENT)
    twice = await remember(client, "alice", URGENT, status=200)
    assert (twice["importance_level"], twice["escalated_at"]) == ("medium", None)
    assert await escalations(client, "alice") == []
    (hit,) = await recall(client, "alice", "很重要")
    assert hit["memory"]["frequency_count"] == 3
    recalled = hit["memory"]
    assert (recalled["importance_level"], recalled["escalated_at"]) == ("high", CLOCK_START)
    assert [m["id"] for m in await escalations(client, "alice")] == [twice["id"]]


async def test_a_superseded_escalation_leaves_the_list(client: httpx.AsyncClient) -> None:
    urgent = await escalate(client, "alice")
    newer = await remember(client, "alice", "这件事已经处理好了")
    resp = await client.post(
        f"/v1/users/alice/memories/{urgent['id']}/supersede", json={"by": newer["id"]}
    )
    body(resp, 200)
    assert await escalations(client, "alice") == []
    assert await escalations(client, "alice", include_acknowledged="true") == []
    (kept,) = await escalations(client, "alice", include_superseded="true")
    assert (kept["id"], kept["superseded_by_id"]) == (urgent["id"], newer["id"])
    assert kept["escalated_at"] == CLOCK_START


async def test_ack_of_a_memory_that_is_not_escalated(client: httpx.AsyncClient) -> None:
    tea = await remember(client, "alice", "I drink green tea every morning")
    resp = await client.post(f"/v1/users/alice/escalations/{tea['id']}/ack")
    assert_error(resp, 422, "invalid_input")
    missing = await client.post(f"/v1/users/alice/escalations/{MISSING_ID}/ack")
    assert_error(missing, 404, "memory_not_found")


async def test_escalation_ends_when_the_memory_cools_down(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    urgent = await escalate(client, "alice")
    clock.advance(days=60)
    run = await rescore(client)
    assert (run["rows"], run["escalations"]) == (1, 0)
    cooled = await fetch(client, "alice", urgent["id"])
    assert cooled["importance_level"] != "high"
    assert cooled["escalated_at"] is None
    assert await escalations(client, "alice", include_acknowledged="true") == []
