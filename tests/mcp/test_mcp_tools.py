"""The tools in process (the SDK's in-memory client) on the test database, both backends:
what a refusal leaves behind, and the per-user binding of the stdio server."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator

import httpx
import pytest
from mcp import Client

from api.mcp.server import build_mcp_server
from services.composition import Services
from services.core.db import Database
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer
from tests.conftest import FakeClock
from tests.mcp.conftest import error_text, structured


@pytest.fixture
async def state(
    db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> AsyncIterator[Services]:
    built = Services(settings, db, analyzer, clock)
    yield built
    await built.background.close()


async def test_a_correction_of_a_missing_memory_writes_nothing(state: Services) -> None:
    async with Client(build_mcp_server(lambda: state, scoped=False)) as mcp:
        refused = await mcp.call_tool(
            "correct_fact", {"user_id": "u", "memory_id": 12345, "correction": "I moved"}
        )
        assert "memory_not_found" in error_text(refused)
        listed = structured(await mcp.call_tool("list_memories", {"user_id": "u"}))
        assert listed["items"] == []


async def test_a_tool_refuses_what_the_route_refuses(state: Services) -> None:
    async with Client(build_mcp_server(lambda: state, scoped=False)) as mcp:
        for arguments in (
            {"content": "   "},  # blank
            {"content": "a\x00b"},  # NUL
            {"content": "fine", "tags": ["x" * 65]},  # a tag over the limit
            {"content": "fine", "memory_type": "gossip"},
            {"content": "fine", "role": "system"},
        ):
            refused = await mcp.call_tool("remember", {"user_id": "u", **arguments})
            assert refused.is_error, arguments
        nul_query = await mcp.call_tool("recall", {"user_id": "u", "query": "a\x00"})
        assert nul_query.is_error
        listed = structured(await mcp.call_tool("list_memories", {"user_id": "u"}))
        assert listed["items"] == []


async def test_remember_takes_whose_words_they_are(state: Services) -> None:
    async with Client(build_mcp_server(lambda: state, scoped=False)) as mcp:
        said = {"user_id": "u", "content": "I live in Oslo"}
        mine = structured(await mcp.call_tool("remember", said))
        echo = structured(await mcp.call_tool("remember", {**said, "role": "assistant"}))
        assert (mine["memory"]["role"], echo["memory"]["role"]) == ("user", "assistant")
        assert echo["merged"] is False
        assert echo["memory"]["id"] != mine["memory"]["id"]


async def test_correct_fact_keeps_the_type_and_leaves_the_old_memory_out_of_recall(
    state: Services,
) -> None:
    async with Client(build_mcp_server(lambda: state, scoped=False)) as mcp:
        old = structured(
            await mcp.call_tool(
                "remember",
                {"user_id": "u", "content": "My office is on floor 3", "memory_type": "fact"},
            )
        )["memory"]
        fixed = structured(
            await mcp.call_tool(
                "correct_fact",
                {"user_id": "u", "memory_id": old["id"], "correction": "My office is on floor 7"},
            )
        )
        assert fixed["new"]["memory_type"] == "fact"
        assert fixed["old"]["superseded_by_id"] == fixed["new"]["id"]
        hits = structured(await mcp.call_tool("recall", {"user_id": "u", "query": "office floor"}))
        assert [h["memory"]["id"] for h in hits["results"]] == [fixed["new"]["id"]]
        (hit,) = hits["results"]
        assert 0.0 < hit["confidence"] <= 1.0
        assert hit["context_of"] is None
        assert hits["sufficient"] is False  # one result is never enough (seed 001 §1.2)
        assert hits["coverage"] == 1.0
        listed = structured(
            await mcp.call_tool("list_memories", {"user_id": "u", "order": "recent", "limit": 1})
        )
        assert [m["id"] for m in listed["items"]] == [fixed["new"]["id"]]
        assert listed["next_cursor"] is None


async def test_context_injects_the_memory_and_forget_takes_it_out(state: Services) -> None:
    async with Client(build_mcp_server(lambda: state, user_id="u")) as mcp:
        dog = structured(await mcp.call_tool("remember", {"content": "My dog is called Rex"}))
        ask = {"messages": [{"role": "user", "content": "What is my dog called?"}]}
        assembled = structured(await mcp.call_tool("context", {**ask, "budget_tokens": 300}))
        assert [m["id"] for m in assembled["memories"]] == [dog["memory"]["id"]]
        assert assembled["messages"][-1] == ask["messages"][0]
        structured(await mcp.call_tool("forget", {"memory_id": dog["memory"]["id"]}))
        after = structured(await mcp.call_tool("context", {**ask, "budget_tokens": 300}))
        assert after["memories"] == []
        too_small = await mcp.call_tool("context", {**ask, "budget_tokens": 0})
        assert too_small.is_error


async def test_a_user_s_server_reaches_only_that_user(state: Services) -> None:
    async with Client(build_mcp_server(lambda: state, user_id="alice")) as alice:
        structured(await alice.call_tool("remember", {"content": "Alice likes tea"}))
        # user_id is not a parameter of alice's tools: a model that sends one anyway
        # still reads alice's memories (the SDK drops unknown arguments).
        sneaky = structured(await alice.call_tool("list_memories", {"user_id": "bob"}))
        assert [m["content"] for m in sneaky["items"]] == ["Alice likes tea"]
    async with Client(build_mcp_server(lambda: state, scoped=False)) as anyone:
        bob = structured(await anyone.call_tool("list_memories", {"user_id": "bob"}))
        assert bob["items"] == []
        alice_items = structured(await anyone.call_tool("list_memories", {"user_id": "alice"}))
        assert [m["content"] for m in alice_items["items"]] == ["Alice likes tea"]


INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


async def test_without_keys_mcp_answers_loopback_names_only(client: httpx.AsyncClient) -> None:
    """Auth off: a page that rebinds its own name to 127.0.0.1 is refused (Host, Origin)."""
    local = await client.post(
        "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Host": "127.0.0.1:8000"}
    )
    assert local.status_code == 200, local.text
    assert local.json()["result"]["serverInfo"]["name"] == "jarvis-memory"
    rebound = await client.post(
        "/mcp", json=INITIALIZE, headers={**MCP_HEADERS, "Host": "evil.example:8000"}
    )
    assert rebound.status_code in (403, 421), rebound.text
    cross = await client.post(
        "/mcp",
        json=INITIALIZE,
        headers={**MCP_HEADERS, "Host": "127.0.0.1:8000", "Origin": "http://evil.example"},
    )
    assert cross.status_code == 403, cross.text


def test_building_the_server_leaves_the_root_logger_alone(state: Services) -> None:
    """The SDK's constructor would configure logging; that is the application's to do.
    pytest's own handlers on the root would hide it: they are set aside meanwhile."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    for handler in handlers:
        root.removeHandler(handler)
    try:
        build_mcp_server(lambda: state, scoped=False)
        assert (root.handlers, root.level) == ([], level)
    finally:
        for handler in root.handlers:
            root.removeHandler(handler)
        for handler in handlers:
            root.addHandler(handler)
        root.setLevel(level)
