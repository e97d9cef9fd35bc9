"""MemoryRepository.get_many on both databases: one user's rows, as they are now."""

from __future__ import annotations

from sqlalchemy import update

from models import UserMemory
from services.repositories.memories import MemoryRepository
from tests.factories import Services


async def test_get_many_returns_only_this_users_existing_memories(services: Services) -> None:
    mine = [await services.add("u", f"note {n} about the garden") for n in range(3)]
    theirs = await services.add("other", "their note about the garden")
    wanted = [mine[0].id, mine[2].id, theirs.id, theirs.id + 1000]
    async with services.db.reader() as session:
        found = await MemoryRepository(session).get_many("u", wanted)
        nothing = await MemoryRepository(session).get_many("u", [])
    assert sorted(found) == [mine[0].id, mine[2].id]
    assert found[mine[2].id].content == mine[2].content
    assert nothing == {}


async def test_get_many_reloads_rows_the_session_already_holds(services: Services) -> None:
    memory = await services.add("u", "note about the garden")
    async with services.db.unit_of_work() as session:
        repo = MemoryRepository(session)
        before = (await repo.get_many("u", [memory.id]))[memory.id]
        await session.execute(
            update(UserMemory)
            .where(UserMemory.id == memory.id)
            .values(recall_count=UserMemory.recall_count + 5)
            .execution_options(synchronize_session=False)
        )
        after = (await repo.get_many("u", [memory.id]))[memory.id]
    # The same identity, refreshed: a tracked recall returns the counts it just wrote.
    assert after is before
    assert after.recall_count == memory.recall_count + 5
