"""newest_by_topic: per topic its newest memories, on both databases and in chunks."""

from __future__ import annotations

from services.repositories.search import SearchRepository
from services.repositories.statements.topic_sql import TOPICS_PER_STATEMENT
from tests.factories import Services


async def test_each_topic_gives_its_newest_memories_oldest_first(services: Services) -> None:
    ids = [(await services.add("u", f"note number {i} about things")).id for i in range(4)]
    theirs = (await services.add("other", "someone else's note")).id
    # More topics than one SQLite statement holds, so the chunks must add up.
    topics = [f"topic{i:03d}" for i in range(TOPICS_PER_STATEMENT + 30)]
    async with services.db.unit_of_work() as session:
        repo = SearchRepository(session)
        await repo.add_topics_many("u", {ids[0]: topics, ids[1]: topics[:50], ids[3]: topics})
        await repo.add_topics_many("other", {theirs: topics})
        found = await repo.newest_by_topic("u", [*topics, "unknown", topics[0]], limit=2)
        nobody = await repo.newest_by_topic("nobody", topics, limit=2)
        none = await repo.newest_by_topic("u", [], limit=2)
    assert set(found) == set(topics)
    assert found[topics[0]] == [ids[1], ids[3]]
    assert found[topics[49]] == [ids[1], ids[3]]
    assert found[topics[50]] == [ids[0], ids[3]]
    assert found[topics[-1]] == [ids[0], ids[3]]
    assert nobody == {}
    assert none == {}
