"""The memories a context request injects: injection knobs (seed 003), progressive loading
(seed 001 §4.3), the 200-character summary (seed 004) and the knowledge cache, through the
real app on SQLite and PostgreSQL."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest

from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import HEURISTIC
from tests.api.conftest import AppFactory
from tests.api.helpers import Json, assert_error, body, remember
from tests.conftest import FakeClock
from tests.services.context.llm_server import FakeLlm, serve

TEA = [
    "Alice drinks green tea every morning",
    "Alice's favourite tea shop is in Lisbon",
    "Alice brews tea at 80 degrees",
    "Alice bought a new tea pot in March",
    "Alice thinks black tea is too strong",
]


def ask(question: str, **fields: Any) -> Json:
    return {"messages": [{"role": "user", "content": question}], "budget_tokens": 4000, **fields}


async def assemble(client: httpx.AsyncClient, user: str, payload: Json) -> Json:
    result: Json = body(await client.post(f"/v1/users/{user}/context", json=payload), 200)
    return result


def block(out: Json) -> str | None:
    found = [m["content"] for m in out["messages"] if m.get("name") == "memory_context"]
    return found[0] if found else None


async def test_injection_knobs_per_request(client: httpx.AsyncClient) -> None:
    for text in TEA:
        await remember(client, "alice", text)
    out = await assemble(client, "alice", ask("tell me about Alice and tea"))
    assert len(out["memories"]) == 5  # seed 003: memory_top_k 5
    two = await assemble(client, "alice", ask("tell me about Alice and tea", memory_top_k=2))
    assert len(two["memories"]) == 2
    off = await assemble(
        client, "alice", ask("tell me about Alice and tea", enable_memory_injection=False)
    )
    assert off["memories"] == []
    assert block(off) is None
    assert off["cache"] == ""
    small = await assemble(
        client, "alice", ask("tell me about Alice and tea", memory_max_tokens=40)
    )
    content = block(small)
    assert content is not None
    assert HEURISTIC.message(ChatMessage("assistant", content, name="memory_context")) <= 40
    assert small["dropped_memories"]


async def test_injection_can_be_off_by_setting(app_with: AppFactory) -> None:
    http = await app_with(context_memory_injection=False)
    await remember(http, "alice", TEA[0])
    out = await assemble(http, "alice", ask("green tea"))
    assert out["memories"] == []
    on = await assemble(http, "alice", ask("green tea", enable_memory_injection=True))
    assert [m["text"] for m in on["memories"]] == [TEA[0]]


async def test_more_memories_on_request(client: httpx.AsyncClient) -> None:
    for text in TEA:
        await remember(client, "alice", text)
    question = "tell me about Alice and tea"
    first = await assemble(client, "alice", ask(question, memory_top_k=2))
    assert len(first["memories"]) == 2
    assert first["next_cursor"]
    more = await assemble(
        client, "alice", ask(question, memory_top_k=2, cursor=first["next_cursor"])
    )
    assert len(more["memories"]) == 4
    assert {m["id"] for m in first["memories"]} < {m["id"] for m in more["memories"]}
    last = await assemble(
        client, "alice", ask(question, memory_top_k=2, cursor=more["next_cursor"])
    )
    assert len(last["memories"]) == 5
    assert last["next_cursor"] is None  # fewer came back than asked: there are no more
    resp = await client.post(
        "/v1/users/alice/context", json=ask("another question", cursor=first["next_cursor"])
    )
    assert "different query" in assert_error(resp, 422, "invalid_input")["message"]
    resp = await client.post("/v1/users/alice/context", json=ask(question, cursor="nonsense"))
    assert_error(resp, 422, "invalid_input")


async def test_the_memories_as_one_short_summary(client: httpx.AsyncClient) -> None:
    for text in TEA:
        await remember(client, "alice", text)
    out = await assemble(client, "alice", ask("what tea does Alice drink", summarize_memories=True))
    summary = out["memory_summary"]
    assert summary["method"] == "extractive"
    assert 0 < len(summary["text"]) <= 200
    assert "green tea" in summary["text"]
    assert block(out) == "## Relevant Memories\n" + summary["text"]
    assert all(m["summarized"] for m in out["memories"])
    assert sorted(summary["memory_ids"]) == sorted(m["id"] for m in out["memories"])
    lines = await assemble(client, "alice", ask("what tea does Alice drink"))
    assert lines["memory_summary"] is None  # auto: 5 short memories are no 5,000 characters


class SummaryServer(FakeLlm):
    """Scores messages as FakeLlm does; answers a memory-summary prompt with 300 characters."""

    def answer(self, prompt: str) -> tuple[int, str]:
        if "上下文摘要" not in prompt:
            return super().answer(prompt)
        if self.mode == "error":
            return 500, "{}"
        text = "Alice 每天早上喝绿茶。" * 30
        return 200, json.dumps({"choices": [{"message": {"content": text}}]})


@pytest.fixture
def summary_llm() -> Iterator[SummaryServer]:
    with serve(SummaryServer()) as server:
        assert isinstance(server, SummaryServer)
        yield server


async def test_an_llm_writes_the_summary_in_200_characters(
    app_with: AppFactory, summary_llm: SummaryServer
) -> None:
    http = await app_with(
        llm_base_url=summary_llm.base_url,
        context_memory_summary="always",
        recall_min_confidence=0.0,  # every memory that shares a word comes back
    )
    for text in TEA:
        await remember(http, "alice", text)
    out = await assemble(http, "alice", ask("what tea does Alice drink"))
    summary = out["memory_summary"]
    assert summary["method"] == "llm"
    assert len(summary["text"]) <= 200
    assert summary["text"].endswith("。")  # cut where a sentence ends
    prompt = next(
        r["messages"][0]["content"]
        for r in summary_llm.requests
        if "上下文摘要" in r["messages"][0]["content"]
    )
    assert "当前用户查询：what tea does Alice drink" in prompt
    assert "不超过200字" in prompt
    assert all(text in prompt for text in TEA)
    summary_llm.mode = "error"  # a failing LLM: the extractive summary instead
    failed = await assemble(http, "alice", ask("does Alice like black tea"))
    assert failed["memory_summary"]["method"] == "extractive"


async def test_the_cache_answers_a_repeated_question_until_a_write(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    await remember(client, "alice", TEA[0])
    first = await assemble(client, "alice", ask("What tea does Alice drink?"))
    assert first["cache"] == "miss"
    # The same question, typed differently: the normalised query is the same.
    again = await assemble(client, "alice", ask("what TEA does alice drink"))
    assert again["cache"] == "hit"
    assert [m["id"] for m in again["memories"]] == [m["id"] for m in first["memories"]]
    # Another user asking the same never reads Alice's entry.
    bob = await assemble(client, "bob", ask("What tea does Alice drink?"))
    assert bob["cache"] == "miss"
    assert bob["memories"] == []
    # Any write of the user's memories: the next request recalls again and sees it.
    new = await remember(client, "alice", "Alice drinks oolong tea now")
    after = await assemble(client, "alice", ask("What tea does Alice drink?"))
    assert after["cache"] == "miss"
    assert new["id"] in [m["id"] for m in after["memories"]]
    assert (await assemble(client, "alice", ask("What tea does Alice drink?")))["cache"] == "hit"
    # Five minutes later the entry has expired.
    clock.advance(seconds=300)
    assert (await assemble(client, "alice", ask("What tea does Alice drink?")))["cache"] == "miss"


async def test_every_kind_of_write_invalidates(client: httpx.AsyncClient) -> None:
    one = await remember(client, "alice", TEA[0])
    two = await remember(client, "alice", TEA[1])
    base = f"/v1/users/alice/memories/{one['id']}"
    writes: dict[str, Callable[[], Awaitable[httpx.Response]]] = {
        "link": lambda: client.post(f"{base}/links", json={"target_id": two["id"]}),
        "edit": lambda: client.patch(base, json={"content": "Alice drinks white tea"}),
        "supersede": lambda: client.post(f"{base}/supersede", json={"by": two["id"]}),
        "restore": lambda: client.post(f"{base}/restore"),
        "delete": lambda: client.delete(base),
    }
    question = ask("Alice tea")
    for name, write in writes.items():
        await assemble(client, "alice", question)
        assert (await assemble(client, "alice", question))["cache"] == "hit", name
        resp = await write()
        assert resp.status_code < 300, resp.text
        assert (await assemble(client, "alice", question))["cache"] == "miss", name


async def test_a_write_in_another_process_invalidates(app_with: AppFactory) -> None:
    # Two apps on one database are two server processes (serve --workers 2): each has its
    # own cache, and the write version read from the database keeps them honest.
    one, other = await app_with(), await app_with()
    await remember(one, "alice", TEA[0])
    question = ask("What tea does Alice drink?")
    await assemble(one, "alice", question)
    assert (await assemble(one, "alice", question))["cache"] == "hit"
    new = await remember(other, "alice", "Alice drinks oolong tea now")
    after = await assemble(one, "alice", question)
    assert after["cache"] == "miss"
    assert new["id"] in [m["id"] for m in after["memories"]]


async def test_the_cache_can_be_off(app_with: AppFactory) -> None:
    http = await app_with(context_cache_ttl_seconds=0)
    await remember(http, "alice", TEA[0])
    for _ in range(2):
        assert (await assemble(http, "alice", ask("green tea")))["cache"] == "off"
