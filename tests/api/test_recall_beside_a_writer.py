"""A recall reads beside an open write transaction instead of queueing for its lock.

With the real engine (commits are real), so that the writer and the recall hold
separate connections: on SQLite a unit of work holds the database's write lock from its
first statement, and a recall that took that lock too waited for every writer.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from api.app import create_app
from services.core.db import Database
from services.core.settings import Settings
from services.remembering.memory_service import MemoryService, NewMemory
from services.text.analysis import TextAnalyzer
from tests.conftest import FakeClock
from tests.factories import delete_users
from tests.timing import lifespan, scaled

USER, WRITER = "beside-a-writer", "beside-a-writer-2"


@pytest.fixture
async def real_db(engine: AsyncEngine) -> AsyncIterator[Database]:
    database = Database(engine)
    yield database
    async with database.unit_of_work() as session:
        await delete_users(session, USER, WRITER)


async def test_recall_answers_while_a_writer_holds_the_lock_and_counts_after_it(
    real_db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> None:
    async with real_db.unit_of_work() as session:
        stored = await MemoryService(session, settings, analyzer, clock).add(
            USER, NewMemory(content="the spare key is under the blue flowerpot")
        )
    app = create_app(settings, db=real_db, clock=clock)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http,
    ):
        url = f"/v1/users/{USER}/recall"
        async with real_db.unit_of_work() as writer:
            await MemoryService(writer, settings, analyzer, clock).add(
                WRITER, NewMemory(content="a write that is still open")
            )
            # SQLite's busy_timeout is 30 s: a recall queued for the lock would time out here.
            untracked = await asyncio.wait_for(
                http.post(url, json={"query": "spare key", "track": False}), timeout=scaled(10)
            )
            tracked = asyncio.create_task(http.post(url, json={"query": "spare key"}))
            await asyncio.sleep(0.2)
        response = await asyncio.wait_for(tracked, timeout=scaled(10))
    assert untracked.status_code == 200
    assert [h["memory"]["id"] for h in untracked.json()["results"]] == [stored.memory.id]
    assert untracked.json()["results"][0]["memory"]["recall_count"] == 0
    assert response.status_code == 200
    assert response.json()["results"][0]["memory"]["recall_count"] == 1
    async with real_db.unit_of_work() as session:
        memory = await MemoryService(session, settings, analyzer, clock).get(USER, stored.memory.id)
    assert memory.recall_count == 1
