"""bench/consistency.py: every check passes on a consistent user and catches its break."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import delete, update

from bench.consistency import CHECKS, STALE_SCORES, inconsistencies
from models import MemoryTermStat, MemoryUser, UserMemory
from services.core.db import Database
from tests.factories import Services


async def _two_linked(services: Services) -> tuple[UserMemory, UserMemory]:
    older = await services.add("u", "季度报告要在周五前交")
    newer = await services.add("u", "季度报告的数据还没整理")
    assert newer.associated_count == 1  # linked by their shared topic
    return older, newer


async def test_a_consistent_user_breaks_no_check(services: Services, db: Database) -> None:
    await _two_linked(services)
    await services.recall("u", "季度报告")  # counted: frequency = mentions + recalls
    await services.add("u", "季度报告要在周五前交！")  # a repeat: mentions + 1
    async with db.reader() as session:
        assert await inconsistencies(session, "u", services.settings) == {}


BREAKS: dict[str, tuple[Any, dict[str, Any]]] = {
    "user count and length": (MemoryUser, {"memory_count": 5}),
    "document frequencies": (MemoryTermStat, {"df": 9}),
    "document lengths": (UserMemory, {"doc_length": 1}),
    "topic rows": (UserMemory, {"topics": []}),
    "link counts": (UserMemory, {"associated_count": 0}),
    "frequency = mentions + recalls": (UserMemory, {"frequency_count": 7}),
    "superseded by a missing memory": (UserMemory, {"superseded_by_id": 10**9}),
    STALE_SCORES: (UserMemory, {"importance_score": 0.123}),
}


@pytest.mark.parametrize("check", sorted(BREAKS))
async def test_each_check_catches_its_break(services: Services, db: Database, check: str) -> None:
    _, newer = await _two_linked(services)
    model, values = BREAKS[check]
    async with db.unit_of_work() as session:
        where = [model.user_id == "u"]
        if model is UserMemory:
            where.append(model.id == newer.id)
        await session.execute(update(model).where(*where).values(**values))
    async with db.reader() as session:
        found = await inconsistencies(session, "u", services.settings)
    # A memory's length is also part of the user's total.
    also = {"user count and length"} if check == "document lengths" else set()
    if check in ("frequency = mentions + recalls", "link counts"):
        also.add(STALE_SCORES)  # the score no longer follows from the row
    assert set(found) == {check, *also}


async def test_postings_without_a_frequency_are_caught(services: Services, db: Database) -> None:
    await _two_linked(services)
    async with db.unit_of_work() as session:
        await session.execute(delete(MemoryTermStat).where(MemoryTermStat.user_id == "u"))
    async with db.reader() as session:
        found = await inconsistencies(session, "u", services.settings)
    assert "postings without a frequency" in found


def test_every_check_is_tested() -> None:
    assert {*CHECKS, STALE_SCORES} == {*BREAKS, "postings without a frequency"}
