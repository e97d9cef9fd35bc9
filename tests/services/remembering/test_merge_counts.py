"""What a repeat adds to the memory it merges into: every mention, and any new emotion.

The older merge tests repeated a memory once per batch, so counting a batch's repeats of a
stored memory as one passed them; and none brought an emotion the stored memory lacked.
"""

from __future__ import annotations

import pytest

from services.remembering.memory_service import MemoryService, NewMemory
from services.scoring.scorer import ImportanceScorer
from tests.factories import Services

PLAIN = "Finish the quarterly report for the board"


async def _add_many(services: Services, items: list[NewMemory]) -> list[tuple[int, bool]]:
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, services.clock)
        return [(s.memory.id, s.merged) for s in await service.add_many("u", items)]


async def test_a_batch_repeating_a_stored_memory_counts_every_repeat(services: Services) -> None:
    stored = await services.add("u", PLAIN)
    outcomes = await _add_many(services, [NewMemory(content=PLAIN), NewMemory(content=PLAIN)])
    assert outcomes == [(stored.id, True), (stored.id, True)]
    memory = await services.get("u", stored.id)
    assert (memory.mention_count, memory.frequency_count) == (3, 3)
    assert memory.last_mentioned_at == services.clock()
    # The frequency component saw all three: min(1, 3/3) now.
    assert memory.frequency_score == pytest.approx(1.0)


async def test_a_repeat_with_a_new_emotion_raises_the_stored_score(services: Services) -> None:
    stored = await services.add("u", PLAIN)
    assert (stored.emotion_tags, stored.emotion_score) == ([], 0.0)
    again = await services.add("u", PLAIN, emotion_tags=["urgent"])
    assert again.id == stored.id
    memory = await services.get("u", stored.id)
    assert memory.emotion_tags == ["urgent"]
    assert memory.emotion_score == pytest.approx(1.0)


async def test_the_merge_rescores_with_the_new_emotion(services: Services) -> None:
    # On PostgreSQL the merge's rescoring runs as driver SQL, which once skipped the ORM's
    # autoflush and read the old emotion (0.433 for 0.683): driver_sql now flushes first.
    stored = await services.add("u", PLAIN)
    await services.add("u", PLAIN, emotion_tags=["urgent"])
    memory = await services.get("u", stored.id)
    # The merge rescored the memory with the new emotion (weight 0.25, recency floor).
    expected = ImportanceScorer(services.settings).breakdown(memory, services.clock())
    assert memory.importance_score == pytest.approx(expected.score, abs=1e-6)
    assert memory.importance_score > stored.importance_score + 0.2


async def test_a_weaker_new_tag_is_kept_without_lowering_the_score(services: Services) -> None:
    stored = await services.add("u", PLAIN, emotion_tags=["urgent"])
    await services.add("u", PLAIN, emotion_tags=["无所谓"])
    memory = await services.get("u", stored.id)
    assert memory.emotion_tags == ["urgent", "无所谓"]
    assert memory.emotion_score == pytest.approx(1.0)


async def test_a_repeat_inside_the_batch_brings_its_emotion_too(services: Services) -> None:
    outcomes = await _add_many(
        services, [NewMemory(content=PLAIN), NewMemory(content=PLAIN, emotion_tags=["urgent"])]
    )
    assert [merged for _, merged in outcomes] == [False, True]
    memory = await services.get("u", outcomes[0][0])
    assert (memory.mention_count, memory.emotion_tags) == (2, ["urgent"])
    assert memory.emotion_score == pytest.approx(1.0)


async def test_repeats_inside_the_batch_keep_every_tag(services: Services) -> None:
    outcomes = await _add_many(
        services,
        [
            NewMemory(content=PLAIN, emotion_tags=["urgent"]),
            NewMemory(content=PLAIN, emotion_tags=["无所谓"]),
        ],
    )
    memory = await services.get("u", outcomes[0][0])
    assert (memory.emotion_tags, memory.emotion_score) == (["urgent", "无所谓"], 1.0)
