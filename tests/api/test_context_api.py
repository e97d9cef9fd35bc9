"""POST /v1/users/{id}/context through the real app, on SQLite and PostgreSQL."""

from __future__ import annotations

import random
from typing import Any

import httpx
import pytest

from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import HEURISTIC
from tests.api.helpers import Json, assert_error, body, fetch, list_all, remember

SYSTEM = {"role": "system", "content": "You are Jarvis, a personal assistant. 回答简洁。"}


def url(user: str) -> str:
    return f"/v1/users/{user}/context"


def tokens(messages: list[Json]) -> int:
    return HEURISTIC.messages(
        ChatMessage(m["role"], m["content"], name=m.get("name")) for m in messages
    )


def long_conversation(turns: int = 40) -> list[Json]:
    out: list[Json] = [SYSTEM]
    for i in range(turns):
        out.append(
            {"role": "user", "content": f"第{i}步：我们决定用 Redis 做缓存。必须兼容 Python 3.11。"}
        )
        out.append(
            {"role": "assistant", "content": f"Step {i}: I updated config/cache.yaml for you."}
        )
    out.append({"role": "user", "content": "缓存用的是什么？"})
    return out


async def assemble(client: httpx.AsyncClient, user: str, **fields: Any) -> Json:
    result: Json = body(await client.post(url(user), json=fields), 200)
    return result


async def test_memories_are_injected_just_before_the_last_user_message(
    client: httpx.AsyncClient,
) -> None:
    sister = await remember(client, "alice", "My sister Ann lives in Lisbon", memory_type="fact")
    await remember(client, "alice", "下周五要交季度报告，很急")
    messages = [
        SYSTEM,
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello! How can I help?"},
        # Her name too: a confident hit (services/recall/confidence.py), so it counts.
        {"role": "user", "content": "Where does my sister Ann live?"},
    ]
    out = await assemble(client, "alice", messages=messages, budget_tokens=2000)
    sent = out["messages"]
    assert [m["content"] for m in sent if m.get("name") != "memory_context"] == [
        m["content"] for m in messages
    ]
    block = sent[-2]
    assert block == {
        "role": "assistant",
        "name": "memory_context",
        "content": block["content"],
    }
    assert block["content"].startswith("## Relevant Memories\n")
    assert "Ann lives in Lisbon" in block["content"]
    assert sent[-1] == messages[-1]
    assert out["memories"][0]["id"] == sister["id"]
    assert out["memories"][0]["score"] > 0
    assert out["query"] == "Where does my sister Ann live?"
    assert out["total_tokens"] == tokens(sent) <= 2000
    assert set(out["usage"]) == {"history", "memories", "system", "reserve"}
    assert out["usage"]["memories"]["used"] == tokens([block])
    assert sum(u["allocated"] for u in out["usage"].values()) == 2000
    assert out["summary"] is None
    assert out["compression_rate"] == 0.0
    # Injected memories count as recalled; the tracked count is visible at once.
    assert (await fetch(client, "alice", sister["id"]))["recall_count"] == 1


async def test_an_older_memory_block_is_replaced(client: httpx.AsyncClient) -> None:
    await remember(client, "alice", "Alice prefers green tea over coffee", memory_type="preference")
    messages = [
        SYSTEM,
        {"role": "assistant", "name": "memory_context", "content": "## Relevant Memories\n- stale"},
        {"role": "user", "content": "What tea do I prefer?"},
        {"role": "assistant", "content": "Green tea."},
        {"role": "user", "content": "And which tea again?"},
    ]
    out = await assemble(client, "alice", messages=messages, budget_tokens=1000)
    assert out["removed_memory_blocks"] == [1]
    blocks = [m for m in out["messages"] if m.get("name") == "memory_context"]
    assert len(blocks) == 1
    assert "stale" not in blocks[0]["content"]
    assert out["messages"].index(blocks[0]) == len(out["messages"]) - 2


async def test_long_history_is_summarised_and_cards_merge_on_repeat(
    client: httpx.AsyncClient,
) -> None:
    messages = long_conversation()
    first = await assemble(
        client, "carol", messages=messages, budget_tokens=1500, conversation_id="conv-1"
    )
    summaries = [m for m in first["messages"] if m.get("name") == "context_summary"]
    assert len(summaries) == 1
    assert summaries[0]["content"].startswith("## Context Summary")
    assert first["summary"]["method"] == "extractive"
    assert first["total_tokens"] <= 1500
    assert first["dropped"]
    assert 0 < first["compression_rate"] < 1
    assert first["cards"]
    assert not any(c["merged"] for c in first["cards"])
    stored = {m["id"]: m for m in await list_all(client, "carol")}
    card = stored[first["cards"][0]["memory_id"]]
    assert card["source"] == "conv-1"
    assert card["metadata"]["origin"] == "context_summary"
    assert card["metadata"]["tags"]
    assert card["memory_type"] in ("decision", "constraint", "code", "goal", "todo", "fact")
    assert card["mention_count"] == 1
    # The same conversation again: repeated statements merge into the same memories. (The
    # new cards are recalled now and take memory budget, so the summary may cover a
    # slightly different range of messages: compare by content.)
    second = await assemble(
        client, "carol", messages=messages, budget_tokens=1500, conversation_id="conv-1"
    )
    before = {
        c["content"]: s["memory_id"]
        for c, s in zip(first["summary"]["cards"], first["cards"], strict=True)
    }
    repeated = [
        (c, s)
        for c, s in zip(second["summary"]["cards"], second["cards"], strict=True)
        if c["content"] in before
    ]
    assert repeated
    for card_in, saved in repeated:
        assert saved["merged"] is True
        assert saved["memory_id"] == before[card_in["content"]]
        assert (await fetch(client, "carol", saved["memory_id"]))["mention_count"] == 2
    again = await fetch(client, "carol", repeated[0][1]["memory_id"])
    assert again["frequency_count"] > stored[again["id"]]["frequency_count"]
    contents = {c["content"] for c in first["summary"]["cards"] + second["summary"]["cards"]}
    assert len(await list_all(client, "carol")) == len(contents)


async def test_cards_can_be_turned_off_per_request(client: httpx.AsyncClient) -> None:
    out = await assemble(
        client, "dave", messages=long_conversation(), budget_tokens=1500, extract_cards=False
    )
    assert out["summary"] is not None
    assert out["cards"] == []
    assert await list_all(client, "dave") == []


async def test_a_previous_summary_is_folded_not_stacked(client: httpx.AsyncClient) -> None:
    first = await assemble(client, "erin", messages=long_conversation(), budget_tokens=1200)
    carried = [m for m in first["messages"] if m.get("name") != "memory_context"]
    more = [
        {"role": "assistant", "content": f"Step {i}: we decided to switch the queue to NATS."}
        for i in range(40)
    ]
    second = await assemble(
        client,
        "erin",
        messages=[*carried, *more, {"role": "user", "content": "队列用什么？"}],
        budget_tokens=1200,
    )
    summaries = [m for m in second["messages"] if m.get("name") == "context_summary"]
    assert len(summaries) == 1
    assert second["summary"]["previous_folded"] is True
    assert "Redis" in summaries[0]["content"]
    assert "NATS" in summaries[0]["content"]


async def test_budget_is_never_exceeded(client: httpx.AsyncClient) -> None:
    things = ["Redis", "Postgres", "Kafka", "咖啡", "绿茶", "Lisbon", "东京", "季度报告", "牙医"]
    for i, thing in enumerate(things):
        await remember(client, "frank", f"{thing}: detail number {i} " + "很重要的事 " * i)
    rng = random.Random(7)
    messages = long_conversation(30)
    for _ in range(12):
        budget = rng.randint(60, 3000)
        resp = await client.post(url("frank"), json={"messages": messages, "budget_tokens": budget})
        if resp.status_code == 422:
            assert tokens([messages[0], messages[-1]]) > budget
            continue
        out = body(resp, 200)
        assert tokens(out["messages"]) == out["total_tokens"] <= budget


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({"messages": [], "budget_tokens": 100}, "messages"),
        ({"messages": [{"role": "robot", "content": "x"}], "budget_tokens": 100}, "role"),
        ({"messages": [{"role": "user", "content": "x"}], "budget_tokens": 0}, "budget_tokens"),
        ({"messages": [{"role": "user", "content": "x"}]}, "budget_tokens"),
        ({"messages": [SYSTEM, {"role": "user", "content": "hi"}], "budget_tokens": 5}, "budget"),
        (
            {
                "messages": [{"role": "user", "content": "x"}],
                "budget_tokens": 50,
                "task_type": "nope",
            },
            "task_type",
        ),
        (
            {"messages": [{"role": "user", "content": "x"}], "budget_tokens": 50, "bogus": 1},
            "bogus",
        ),
        (
            {
                "messages": [{"role": "user", "content": "x"}],
                "budget_tokens": 50,
                "preserve_recent": -1,
            },
            "preserve_recent",
        ),
        ({"messages": [{"role": "user", "content": "a\u0000b"}], "budget_tokens": 50}, "content"),
    ],
)
async def test_bad_input_is_a_clear_422(
    client: httpx.AsyncClient, payload: Json, fragment: str
) -> None:
    error = assert_error(await client.post(url("alice"), json=payload), 422, "invalid_input")
    assert fragment in error["message"] or fragment in str(error.get("details"))


async def test_bad_user_id_is_422(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/v1/users/bad%20id/context",
        json={"messages": [{"role": "user", "content": "x"}], "budget_tokens": 50},
    )
    assert_error(resp, 422, "invalid_input")


async def test_one_user_never_sees_anothers_memories(client: httpx.AsyncClient) -> None:
    secret = await remember(client, "bob", "Bob's bank PIN hint: the Lisbon tram number")
    await remember(client, "alice", "Alice rides the Lisbon tram to work")
    out = await assemble(
        client,
        "alice",
        # Words Alice's memory holds all of (and Bob's too): it passes the 0.7 floor.
        messages=[{"role": "user", "content": "Lisbon tram"}],
        budget_tokens=2000,
    )
    assert out["memories"]
    assert all(m["id"] != secret["id"] for m in out["memories"])
    block = next(m for m in out["messages"] if m.get("name") == "memory_context")
    assert "Alice rides" in block["content"]
    assert "Bob" not in block["content"]
    assert (await fetch(client, "bob", secret["id"]))["recall_count"] == 0


async def test_code_is_a_memory_type(client: httpx.AsyncClient) -> None:
    stored = await remember(client, "gina", "Run `make bench SCALE=small`", memory_type="code")
    assert stored["memory_type"] == "code"
