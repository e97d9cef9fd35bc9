"""An export reads one state of the database: a memory written while it streams is not
in it, on SQLite (the reader's WAL snapshot) and PostgreSQL (REPEATABLE READ), through a
real pool rather than the tests' one rolled-back connection."""

from __future__ import annotations

import json
import uuid

from sqlalchemy.ext.asyncio import AsyncEngine

from services.composition import Services
from services.core.db import Database
from services.core.settings import Settings
from services.remembering.memory_service import NewMemory
from services.text.analysis import TextAnalyzer
from tests.conftest import FakeClock


async def test_a_write_during_an_export_is_not_in_it(
    engine: AsyncEngine, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> None:
    services = Services(settings, Database(engine), analyzer, clock)
    user = f"snapshot-{uuid.uuid4().hex[:8]}"
    try:
        async with services.db.unit_of_work() as session:
            memories = services.memories(session)
            first = await memories.add(user, NewMemory("I drink green tea every morning"))
            second = await memories.add(user, NewMemory("Dentist appointment on Tuesday"))
            await memories.link(user, first.memory.id, second.memory.id)
        lines = services.exporter().lines(user)
        read = [json.loads(await anext(lines)) for _ in range(3)]  # header, person, memory
        assert [line["kind"] for line in read] == ["header", "person", "memory"]
        async with services.db.unit_of_work() as session:
            memories = services.memories(session)
            third = await memories.add(user, NewMemory("I walk the dog at seven"))
            await memories.link(user, first.memory.id, third.memory.id)
        read += [json.loads(line) async for line in lines]
        kinds = [line["kind"] for line in read]
        assert kinds.count("memory") == 2
        assert kinds.count("link") == 1
        assert read[-1]["counts"]["memory"] == 2
    finally:
        async with services.db.unit_of_work() as session:
            await services.erasure(session).erase(user)
