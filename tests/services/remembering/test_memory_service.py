"""MemoryService and RecallService on both databases: the seed 002 acceptance table."""

from __future__ import annotations

import pytest

from services.core.errors import DuplicateContent, InvalidInput, MemoryNotFound
from services.remembering.memory_service import MemoryChanges, MemoryService, NewMemory
from tests.conftest import FakeClock
from tests.factories import Services


async def test_recall_adds_one_per_recall(services: Services) -> None:
    memory = await services.add("u", "我的猫叫咪咪")
    # A one-character word jieba cut otherwise (猫叫) is found, but not surely enough
    # to count; the whole phrase is.
    (hit,) = await services.recall("u", "猫")
    assert (hit.memory.id, hit.counted, hit.memory.recall_count) == (memory.id, False, 0)
    for expected in (1, 2, 3):
        hits = await services.recall("u", "猫叫咪咪")
        assert [h.memory.id for h in hits] == [memory.id]
        assert hits[0].memory.recall_count == expected
        assert hits[0].memory.frequency_count == 1 + expected


async def test_track_false_leaves_counts(services: Services) -> None:
    memory = await services.add("u", "I water the plants on Sundays")
    hits = await services.recall("u", "plants", track=False)
    # Found, and so counted had it been tracked: an empty recall would pass vacuously.
    assert [h.memory.id for h in hits] == [memory.id]
    assert hits[0].memory.recall_count == 0
    stored = await services.get("u", memory.id)
    assert (stored.recall_count, stored.frequency_count, stored.last_recalled_at) == (0, 1, None)


async def test_urgency_words_are_recognised(services: Services) -> None:
    memory = await services.add("u", "这个问题很急，很重要")
    assert {"急", "很重要"} <= set(memory.emotion_tags)
    assert memory.emotion_score == pytest.approx(1.0)


async def test_negated_emotion_is_not_an_emotion(services: Services) -> None:
    memory = await services.add("u", "这件事不急，我也不担心")
    assert memory.emotion_tags == []
    assert memory.emotion_score == 0.0


async def test_explicit_tags_are_merged(services: Services) -> None:
    memory = await services.add("u", "明天开会", emotion_tags=["重要", "family"])
    assert memory.emotion_tags == ["重要", "family"]
    assert memory.emotion_score == pytest.approx(0.75)


async def test_high_frequency_and_emotion_reach_point_eight(services: Services) -> None:
    for _ in range(3):
        memory = await services.add("u", "这个bug很急，必须今天修好")
    assert memory.mention_count == 3
    assert memory.importance_score >= 0.8
    assert memory.importance_level == "high"


async def test_importance_breaks_ties_between_equally_relevant(services: Services) -> None:
    # As long as each other, so BM25 scores them alike.
    plain = await services.add("u", "周五交报告，很难")
    urgent = await services.add("u", "周五交报告，很急")
    hits = await services.recall("u", "周五交报告")
    assert urgent.importance_score > plain.importance_score
    assert [h.memory.id for h in hits[:2]] == [urgent.id, plain.id]


async def test_repeats_merge_instead_of_duplicating(services: Services) -> None:
    first = await services.add("u", "我很担心下周的考试！")
    again = await services.add("u", "我很担心下周的考试")
    near = await services.add("u", "我很担心下周的考试啊")
    other = await services.add("u", "我很期待下周的旅行")
    assert again.id == first.id == near.id
    assert near.mention_count == 3
    assert near.frequency_count == 3
    assert near.last_mentioned_at is not None
    assert other.id != first.id


async def test_empty_query_returns_most_important(services: Services) -> None:
    low = await services.add("u", "今天吃了面条")
    high = await services.add("u", "合同明天到期，很急，很重要")
    hits = await services.recall("u", "   ")
    assert [h.memory.id for h in hits] == [high.id, low.id]
    assert hits[0].relevance == 0.0


async def test_unmatched_query_returns_nothing(services: Services) -> None:
    await services.add("u", "I like tea")
    assert await services.recall("u", "volcano") == []
    assert await services.recall("nobody", "tea") == []


async def test_chinese_bigram_fallback(services: Services) -> None:
    target = await services.add("u", "我是这个项目的经理")
    await services.add("u", "今天天气很好")
    # The bigrams matching, not the floor: "项目经理" is held only in part (below 0.7).
    hits = await services.recall("u", "项目经理", explain=True, min_confidence=0.0)
    assert hits[0].memory.id == target.id
    assert hits[0].explanation is not None
    kinds = {t["kind"] for t in hits[0].explanation["relevance"]["matched_terms"]}
    assert "bigram" in kinds


async def test_explanation_adds_up(services: Services) -> None:
    await services.add("u", "my sister lives in Lisbon")
    hit = (await services.recall("u", "where does my sister live", explain=True))[0]
    e = hit.explanation
    assert e is not None
    total = sum(s["contribution"] for s in e["signals"].values())
    assert total == pytest.approx(hit.score)
    # "sister live" is said word for word (stemmed): the phrase signal counts it.
    assert e["query_type"] == "personal"
    assert e["signals"]["phrase"]["value"] == pytest.approx(1.0)
    assert e["relevance"]["contribution"] == e["signals"]["lexical"]["contribution"]
    parts = sum(c["contribution"] for c in e["importance"]["components"].values())
    assert parts == pytest.approx(hit.importance)
    assert {t["term"] for t in e["relevance"]["matched_terms"]} >= {"sister", "live"}


async def test_shared_topics_create_impact(services: Services) -> None:
    a = await services.add("u", "Python 项目的部署脚本需要重写")
    b = await services.add("u", "Python 项目的测试覆盖率太低")
    a = await services.get("u", a.id)
    assert a.associated_count == 1
    assert b.associated_count == 1
    assert a.impact_score == pytest.approx(0.2)


async def test_update_and_delete(services: Services, clock: FakeClock) -> None:
    a = await services.add("u", "I feel fine about the move")
    b = await services.add("u", "Book the movers")
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, clock)
        updated = await service.update(
            "u", a.id, MemoryChanges(content="I am worried about the move")
        )
        assert "worried" in updated.emotion_tags
        with pytest.raises(DuplicateContent):
            await service.update("u", a.id, MemoryChanges(content="book the movers!"))
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, clock)
        await service.delete("u", b.id)
        with pytest.raises(MemoryNotFound):
            await service.get("u", b.id)
        stats = await service.memories.user_stats("u")
        assert stats is not None
        assert stats.memory_count == 1
    assert await services.recall("u", "movers") == []


async def test_invalid_input_is_refused(services: Services) -> None:
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, services.clock)
        with pytest.raises(InvalidInput):
            await service.add("bad user", NewMemory(content="x"))
        with pytest.raises(InvalidInput):
            await service.add("u", NewMemory(content="   "))
        with pytest.raises(InvalidInput):
            await service.link("u", 1, 1)
    with pytest.raises(InvalidInput):
        await services.recall("u", "x", top_k=0)


async def test_users_are_isolated(services: Services) -> None:
    secret = await services.add("alice", "my bank PIN hint is the cat's birthday")
    assert await services.recall("bob", "bank PIN") == []
    with pytest.raises(MemoryNotFound):
        await services.get("bob", secret.id)
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, services.clock)
        mine = await service.add("bob", NewMemory(content="my bank is nearby"))
        with pytest.raises(MemoryNotFound):
            await service.link("bob", mine.memory.id, secret.id)


async def test_same_words_in_another_order_or_another_number_do_not_merge(
    services: Services,
) -> None:
    a = await services.add("u", "Joanna: Bye Nate!")
    b = await services.add("u", "Nate: Bye Joanna!")
    c = await services.add("u", "My locker code is 4812")
    d = await services.add("u", "My locker code is 4813")
    assert len({a.id, b.id, c.id, d.id}) == 4


async def test_an_unknown_memory_type_is_refused_by_the_service_itself(
    services: Services,
) -> None:
    """Every caller (CLI, MCP, importers, routes) goes through the one check:
    an unknown type is refused before anything is written, on add, batch and edit."""
    memory = await services.add("u", "I keep notes in Obsidian", memory_type="fact")
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, services.clock)
        with pytest.raises(InvalidInput, match="memory_type must be one of: fact, preference"):
            await service.add("u", NewMemory(content="hi", memory_type="note"))
        with pytest.raises(InvalidInput, match="memory_type"):
            await service.add_many("u", [NewMemory(content="hi", memory_type="note")])
        with pytest.raises(InvalidInput, match="memory_type"):
            await service.update("u", memory.id, MemoryChanges(memory_type="note"))
    stored = await services.get("u", memory.id)
    assert stored.memory_type == "fact"
    hits = await services.recall("u", "notes")
    assert [(h.memory.id, h.memory.memory_type) for h in hits] == [(memory.id, "fact")]
