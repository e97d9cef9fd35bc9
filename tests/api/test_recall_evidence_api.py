"""Recall's evidence rules through the REST API: evidence and confidence per hit, no filler,
counting only what was used (tracked recall and ``POST …/memories/used``),
``min_confidence``, ``sufficient`` and ``coverage``, and the query's own urgency and feeling."""

from __future__ import annotations

from typing import Any

import httpx

from tests.api.helpers import MISSING_ID, Json, assert_error, body, fetch, remember
from tests.conftest import FakeClock

STATEMENTS = [
    "My sister Ann lives in Lisbon",
    "下周五要交季度报告，很急，很重要",
    "I am not worried about the dentist appointment",
    "The car insurance renewal is due in April",
    "好的。",
]


async def said_in_one_session(client: httpx.AsyncClient, clock: FakeClock) -> list[Json]:
    """A person's separate statements, two minutes apart (no conversation_id)."""
    stored = []
    for text in STATEMENTS:
        stored.append(await remember(client, "alice", text))
        clock.advance(minutes=2)
    return stored


async def recall_out(client: httpx.AsyncClient, query: str, **fields: Any) -> Json:
    payload: Json = body(
        await client.post("/v1/users/alice/recall", json={"query": query, **fields}), 200
    )
    return payload


async def counts(client: httpx.AsyncClient, memories: list[Json]) -> list[int]:
    return [(await fetch(client, "alice", m["id"]))["recall_count"] for m in memories]


async def test_a_filler_memory_never_comes_back_or_counts(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    sister, report, dentist, insurance, ok = await said_in_one_session(client, clock)
    # Said in the same session as the answer, sharing no word with the question.
    out = await recall_out(client, "Where does my sister Ann live?", top_k=5)
    assert [h["memory"]["id"] for h in out["results"]] == [sister["id"]]
    (hit,) = out["results"]
    assert hit["counted"] is True
    assert hit["confidence"] >= 0.95
    evidence = hit["evidence"]
    assert set(evidence["query_dependent"]["terms"]) >= {"sister", "live", "ann"}
    assert evidence["query_dependent"]["term_coverage"] == 1.0
    assert evidence["query_independent"]["continuity"] == 0.0
    assert evidence["context_of"] is None
    # Tracked recalls that return nothing of theirs, or skip them: no count moves.
    for query in ("Where does my sister Ann live?", "Do I have a dog?", "保险什么时候到期", ""):
        await recall_out(client, query, top_k=5)
    assert await counts(client, [report, dentist, ok]) == [0, 0, 0]
    assert (await fetch(client, "alice", sister["id"]))["recall_count"] == 2
    # An empty query still lists the most important memories, and counts none of them.
    empty = await recall_out(client, "", top_k=5)
    assert len(empty["results"]) == 5
    assert all(h["confidence"] is None and not h["counted"] for h in empty["results"])
    assert empty["sufficient"] is False
    assert await counts(client, [report, dentist, ok]) == [0, 0, 0]
    # A recall that is not sure enough returns its hit but does not count it: half the
    # question ("premium") is in no memory.
    weak = await recall_out(client, "insurance premium", top_k=5, min_confidence=0.0)
    assert [h["memory"]["id"] for h in weak["results"]] == [insurance["id"]]
    assert weak["results"][0]["confidence"] < 0.95
    assert weak["results"][0]["counted"] is False
    assert (await fetch(client, "alice", insurance["id"]))["recall_count"] == 0


async def test_no_answer_returns_nothing(client: httpx.AsyncClient, clock: FakeClock) -> None:
    await said_in_one_session(client, clock)
    out = await recall_out(client, "What is my blood type?", top_k=5)
    assert out["results"] == []
    assert out["sufficient"] is False
    assert out["coverage"] == 0.0


async def test_min_confidence_filters(client: httpx.AsyncClient, clock: FakeClock) -> None:
    await said_in_one_session(client, clock)
    loose = await recall_out(client, "my sister and the dentist", min_confidence=0.0, track=False)
    confidences = [h["confidence"] for h in loose["results"]]
    assert len(confidences) >= 2
    assert all(0.0 < c <= 1.0 for c in confidences)
    cut = sorted(confidences)[-1]
    strict = await recall_out(client, "my sister and the dentist", min_confidence=cut, track=False)
    assert [h["confidence"] for h in strict["results"]] == [c for c in confidences if c >= cut]
    assert len(strict["results"]) < len(loose["results"])
    for bad in (-0.1, 1.5, "high"):
        resp = await client.post(
            "/v1/users/alice/recall", json={"query": "sister", "min_confidence": bad}
        )
        assert_error(resp, 422, "invalid_input")


async def test_sufficient_and_coverage(client: httpx.AsyncClient, clock: FakeClock) -> None:
    for text in (
        "Tom plays the cello in an orchestra",
        "Tom's cello teacher lives in Leeds",
        "Tom practises the cello every evening",
    ):
        await remember(client, "alice", text)
        clock.advance(minutes=2)
    full = await recall_out(client, "Tom cello", track=False)
    assert len(full["results"]) == 3
    assert full["coverage"] == 1.0
    assert full["sufficient"] is True
    # Half the question ("violin") is in no memory: covered in part, not sufficient.
    half = await recall_out(client, "Tom violin", track=False, min_confidence=0.0)
    assert 0.0 < half["coverage"] < 0.8
    assert half["sufficient"] is False
    # Fewer than three results is never sufficient (seed 001 §1.2).
    few = await recall_out(client, "Tom cello", track=False, top_k=2)
    assert few["coverage"] == 1.0
    assert few["sufficient"] is False


async def test_urgency_in_the_question(client: httpx.AsyncClient, clock: FakeClock) -> None:
    _, report, *_ = await said_in_one_session(client, clock)
    urgent_en = await remember(client, "alice", "I urgently need to renew my passport")
    for query in ("我有什么急事？", "What do I need to do urgently?"):
        # The feeling as evidence, not the floor: a memory whose only tie to the question
        # is its urgency stays below 0.7, so no floor here.
        out = await recall_out(client, query, track=False, min_confidence=0.0)
        found = [h["memory"]["id"] for h in out["results"]]
        assert set(found) == {report["id"], urgent_en["id"]}, query
        assert all(h["evidence"]["query_dependent"]["feeling"] > 0 for h in out["results"])
    worried = await recall_out(client, "What am I worried about?", track=False)
    # "not worried" is no worry: the negated statement carries no tag and no evidence
    # beyond the word itself.
    assert all(h["evidence"]["query_dependent"]["feeling"] == 0 for h in worried["results"])


async def test_used_counts_each_id_once(client: httpx.AsyncClient, clock: FakeClock) -> None:
    sister, report, dentist, *_ = await said_in_one_session(client, clock)
    url = "/v1/users/alice/memories/used"
    out = body(
        await client.post(url, json={"ids": [sister["id"], report["id"], sister["id"]]}), 200
    )
    assert out["counted"] == [sister["id"], report["id"]]
    assert [m["recall_count"] for m in out["memories"]] == [1, 1]
    assert await counts(client, [sister, report, dentist]) == [1, 1, 0]
    # One unknown or another user's id: refused whole, nothing counted.
    bob = await remember(client, "bob", "Bob's memory")
    for ids in ([dentist["id"], MISSING_ID], [dentist["id"], bob["id"]]):
        error = assert_error(await client.post(url, json={"ids": ids}), 404, "memory_not_found")
        assert str(ids[1]) in error["message"]
    assert await counts(client, [sister, report, dentist]) == [1, 1, 0]
    assert (await fetch(client, "bob", bob["id"]))["recall_count"] == 0
    bad_bodies: list[Json] = [{"ids": []}, {"ids": [0]}, {"ids": ["1"]}, {}]
    for bad in bad_bodies:
        assert_error(await client.post(url, json=bad), 422, "invalid_input")


async def test_a_conversations_next_turn_comes_back_as_context(
    client: httpx.AsyncClient,
) -> None:
    turns = [
        "Melanie: Caroline, what did you research last week?",
        "Adoption agencies that welcome LGBTQ parents.",
        "Melanie: That sounds wonderful.",
    ]
    items = [{"content": t, "conversation_id": "chat-7"} for t in turns]
    stored = body(await client.post("/v1/users/alice/memories/batch", json={"items": items}), 200)
    question, answer, _ = [m["id"] for m in stored["items"]]
    assert stored["items"][0]["conversation_id"] == "chat-7"
    # The same words said on their own, outside any conversation: no context of anything.
    await remember(client, "alice", "Agencies are closed on Sundays")
    # At the default floor context must reach it too, and continuity alone does not: the
    # question's turn comes back alone (one precision policy for statements and turns).
    default = await recall_out(client, "What did Caroline research?", track=False)
    assert [h["memory"]["id"] for h in default["results"]] == [question]
    # With no floor, the next turn comes back as its context.
    out = await recall_out(client, "What did Caroline research?", track=False, min_confidence=0.0)
    found = {h["memory"]["id"]: h for h in out["results"]}
    assert next(iter(found)) == question
    assert found[answer]["evidence"]["context_of"] == question
    assert found[answer]["evidence"]["query_dependent"]["terms"] == []
    assert found[answer]["evidence"]["query_independent"]["continuity"] > 0
    # Context never counts.
    counted = await recall_out(client, "What did Caroline research?", min_confidence=0.0)
    assert not {h["memory"]["id"]: h for h in counted["results"]}[answer]["counted"]
