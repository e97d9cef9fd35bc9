"""``/mcp``: the tools over streamable HTTP against the real server (uvicorn on loopback),
driven by the MCP SDK's own client, on both databases (the server the Python client's
tests use: one per database for tests/clients)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextResourceContents

from tests.live_server import LiveServer
from tests.mcp.conftest import error_text, structured

USER = "mcp-http-user"


@asynccontextmanager
async def _client(live: LiveServer, key: str) -> AsyncIterator[Client]:
    """The SDK's client on ``/mcp`` with this bearer key."""
    async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}) as http:
        transport = streamable_http_client(f"{live.url}/mcp", http_client=http)
        async with Client(transport) as client:
            yield client


def _rest(live: LiveServer, user: str = USER) -> httpx.Client:
    """The REST API on another connection: what a tool stored is there once it answered."""
    return httpx.Client(
        base_url=f"{live.url}/v1/users/{user}",
        headers={"Authorization": f"Bearer {live.service_key}"},
    )


async def test_without_a_key_mcp_is_refused_in_the_service_error_shape(live: LiveServer) -> None:
    async with httpx.AsyncClient(base_url=live.url) as http:
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            resp = await http.post("/mcp", json={}, headers=headers)
            assert resp.status_code == 401, resp.text
            assert resp.json()["error"]["code"] == "unauthorized"
            assert resp.headers["WWW-Authenticate"] == "Bearer"


async def test_the_tools_remember_recall_correct_list_assemble_and_forget(
    live: LiveServer,
) -> None:
    async with _client(live, live.service_key) as mcp:
        tools = {t.name: t for t in (await mcp.list_tools()).tools}
        assert set(tools) == {
            "remember",
            "recall",
            "forget",
            "list_memories",
            "correct_fact",
            "context",
        }
        assert "user_id" in tools["recall"].input_schema["required"]

        args = {"user_id": USER, "memory_type": "fact", "tags": ["happy"]}
        home = structured(await mcp.call_tool("remember", {**args, "content": "I live in Beijing"}))
        assert home["merged"] is False
        home_id = home["memory"]["id"]
        assert home["memory"]["tags"] == ["happy"]
        # Committed before the tool answered: another connection reads it at once.
        with _rest(live) as rest:
            assert rest.get(f"/memories/{home_id}").json()["content"] == "I live in Beijing"
        again = structured(
            await mcp.call_tool("remember", {**args, "content": "I live in Beijing"})
        )
        assert (again["merged"], again["memory"]["id"]) == (True, home_id)

        hits = structured(await mcp.call_tool("recall", {"user_id": USER, "query": "Beijing"}))
        [hit] = hits["results"]
        assert hit["memory"]["id"] == home_id
        assert hit["score"] > 0
        assert hit["why"]["signals"]["lexical"] > 0
        assert hit["why"]["matched_terms"]  # the stemmed query terms it contains

        corrected = structured(
            await mcp.call_tool(
                "correct_fact",
                {"user_id": USER, "memory_id": home_id, "correction": "I moved to Shanghai"},
            )
        )
        new_id = corrected["new"]["id"]
        assert corrected["old"]["superseded_by_id"] == new_id
        with _rest(live) as rest:
            assert rest.get(f"/memories/{home_id}").json()["superseded_by_id"] == new_id

        listed = structured(await mcp.call_tool("list_memories", {"user_id": USER}))
        assert [m["id"] for m in listed["items"]] == [new_id]

        assembled = structured(
            await mcp.call_tool(
                "context",
                {
                    "user_id": USER,
                    # Words the correction holds all of: it passes the 0.7 floor.
                    "messages": [{"role": "user", "content": "Have I moved to Shanghai?"}],
                    "budget_tokens": 500,
                },
            )
        )
        assert [m["id"] for m in assembled["memories"]] == [new_id]
        assert assembled["total_tokens"] <= 500
        assert any("Shanghai" in m["content"] for m in assembled["messages"])

        read = await mcp.read_resource(f"memory://users/{USER}/important")
        [content] = read.contents
        assert isinstance(content, TextResourceContents)
        assert '"I moved to Shanghai"' in content.text

        assert structured(
            await mcp.call_tool("forget", {"user_id": USER, "memory_id": new_id})
        ) == {"forgotten": new_id}
        with _rest(live) as rest:
            assert rest.get(f"/memories/{new_id}").status_code == 404
            # Forgetting the correction brings the corrected memory back.
            assert rest.get(f"/memories/{home_id}").json()["superseded_by_id"] is None


async def test_refusals_are_tool_errors_with_the_rest_codes(live: LiveServer) -> None:
    user = "mcp-refused"
    async with _client(live, live.service_key) as mcp:
        missing = await mcp.call_tool("forget", {"user_id": user, "memory_id": 999_999})
        assert "memory_not_found" in error_text(missing)
        bad_user = await mcp.call_tool("recall", {"user_id": "no/slashes", "query": "x"})
        assert bad_user.is_error
        empty = await mcp.call_tool("remember", {"user_id": user, "content": ""})
        assert empty.is_error
        with _rest(live, user) as rest:
            assert rest.get("/memories").json()["items"] == []


async def test_an_admin_key_is_accepted_as_on_v1(live: LiveServer) -> None:
    async with _client(live, live.admin_key) as mcp:
        listed = structured(await mcp.call_tool("list_memories", {"user_id": "nobody-yet"}))
        assert listed == {"items": [], "next_cursor": None}
