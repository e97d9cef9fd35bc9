"""Recall's signals on both databases: continuity, time, n-grams, semantic plug-in, MMR."""

from __future__ import annotations

import logging
import math
from datetime import UTC, datetime
from typing import Any

import pytest

from services.core.settings import Settings, SignalWeights
from services.embeddings.similarities import MIN_STORE_FOR_STANDING, Similarities
from services.recall.confidence import confidence
from services.recall.recall_service import INLINE_QUERY_CHARS, RecallHit, RecallService
from tests.conftest import FakeClock
from tests.factories import Services


def ids(hits: list[RecallHit]) -> list[int]:
    return [h.memory.id for h in hits]


async def test_neighbours_of_a_strong_hit_come_along(services: Services, clock: FakeClock) -> None:
    # One conversation: the answer shares no word with the question.
    chat: dict[str, Any] = {"conversation_id": "chat-1"}
    before = await services.add("u", "Melanie: How was your weekend?", **chat)
    question = await services.add("u", "Melanie: Caroline, what did you research?", **chat)
    answer = await services.add("u", "Agencies that welcome LGBTQ parents", **chat)
    # Same moment, another user, the same user in another conversation or in none:
    # never neighbours.
    await services.add("other", "Bob: Agencies in Lisbon", **chat)
    await services.add("u", "Agencies news digest", conversation_id="newsletter")
    await services.add("u", "Agencies said on their own")
    clock.advance(hours=2)  # a later session
    later = await services.add("u", "Agencies called me back today", **chat)

    # At the default floor a neighbour comes along only if its own confidence reaches the
    # floor too; continuity is no evidence of its own, so here only the question does.
    default = await services.recall("u", "What did Caroline research?", top_k=10)
    assert ids(default) == [question.id]
    # How continuity finds and explains the neighbours, with no floor in the way.
    hits = await services.recall(
        "u", "What did Caroline research?", top_k=10, explain=True, min_confidence=0.0
    )
    found = {h.memory.id: h for h in hits}
    assert ids(hits)[0] == question.id
    assert found[answer.id].relevance == 0.0
    assert found[answer.id].signals["continuity"].value == pytest.approx(1.0)
    explanation = found[answer.id].explanation
    assert explanation is not None
    assert explanation["continuity"] == {"anchor_id": question.id, "distance": 1}
    assert explanation["query_type"] == "personal"
    continuity = found[before.id].continuity
    assert continuity is not None
    assert continuity.distance == -1  # said before the anchor
    assert found[before.id].signals["continuity"].value == pytest.approx(1.0)
    assert later.id not in found
    assert len(found) == 3  # the other user's and the other conversations' stay out


async def test_continuity_respects_the_types_filter(services: Services) -> None:
    await services.add("u", "What did you research?", memory_type="event")
    await services.add("u", "Agencies that welcome parents", memory_type="fact")
    hits = await services.recall("u", "research", types=["event"])
    assert [h.memory.memory_type for h in hits] == ["event"]


async def test_a_time_in_the_query_prefers_memories_of_that_time(services: Services) -> None:
    may = await services.add(
        "u", "We went hiking in the hills", created_at=datetime(2023, 5, 20, tzinfo=UTC)
    )
    june = await services.add(
        "u", "We went hiking by the lake", created_at=datetime(2023, 6, 20, tzinfo=UTC)
    )
    plain = await services.recall("u", "hiking", track=False)
    assert ids(plain) == [june.id, may.id]  # equal relevance: newest first
    question = "Where did we go hiking in May 2023?"
    # By default the June hike is not returned: "go" is in no memory, and June is not May.
    assert ids(await services.recall("u", question, track=False)) == [may.id]
    hits = await services.recall("u", question, explain=True, min_confidence=0.0)
    assert ids(hits) == [may.id, june.id]
    assert hits[0].signals["temporal"].value == 1.0
    assert 0.0 < hits[1].signals["temporal"].value < 0.02  # 19 days out, half-life 3
    explanation = hits[0].explanation
    assert explanation is not None
    assert explanation["query_type"] == "temporal"
    assert explanation["time_expression"]["text"] == "May 2023"


async def test_chinese_query_time_expression(services: Services, clock: FakeClock) -> None:
    # The clock is 2026-01-01 (a Thursday); 上周 is 2025-12-22 .. 2025-12-28.
    last_week = await services.add(
        "u", "和老王吃了火锅", created_at=datetime(2025, 12, 24, tzinfo=UTC)
    )
    older = await services.add("u", "和老王吃了烧烤", created_at=datetime(2025, 10, 1, tzinfo=UTC))
    hits = await services.recall("u", "上周和老王吃了什么", explain=True)
    assert ids(hits) == [last_week.id, older.id]
    assert hits[0].explanation is not None
    assert hits[0].explanation["time_expression"]["text"] == "上周"


@pytest.mark.parametrize(
    ("query", "content"),
    [
        ("市长", "南京市长江大桥很美"),  # jieba: 南京市 / 长江大桥
        ("球拍", "乒乓球拍卖完了"),  # jieba: 乒乓球 / 拍卖
        ("尚未", "他和尚未必知道"),  # jieba: 和尚 / 未必
    ],
)
async def test_chinese_ngram_fallback_finds_differently_segmented_words(
    services: Services, clock: FakeClock, query: str, content: str
) -> None:
    memory = await services.add("u", content)
    clock.advance(hours=1)
    await services.add("u", "今天天气不错")
    (hit,) = await services.recall("u", query, explain=True)
    assert hit.memory.id == memory.id
    assert hit.explanation is not None
    kinds = {t["kind"] for t in hit.explanation["relevance"]["matched_terms"]}
    assert kinds == {"bigram"}  # no jieba word in common: the n-gram fallback found it


async def test_project_manager_finds_the_manager_of_this_project(
    services: Services, clock: FakeClock
) -> None:
    memory = await services.add("u", "我是这个项目的经理")
    clock.advance(hours=1)
    phrase = await services.add("u", "新来的项目经理人很好")
    clock.advance(hours=1)
    await services.add("u", "今天天气不错")
    # "项目经理" is only part held by "我是这个项目的经理": found, with little confidence.
    hits = await services.recall("u", "项目经理", explain=True, min_confidence=0.0)
    assert set(ids(hits)) == {memory.id, phrase.id}
    # Said as one phrase (3- and 4-grams, seed 003), the second one ranks first.
    assert ids(hits)[0] == phrase.id
    assert hits[0].signals["phrase"].value == 1.0
    assert hits[1].signals["phrase"].value == 0.0


class FixedSimilarity:
    """A semantic source with fixed answers (the embeddings provider is tested elsewhere)."""

    def __init__(
        self, similar: dict[int, float] | None, mean: float = 0.0, deviation: float = 0.0
    ) -> None:
        self.answers = similar
        self.spread = (mean, deviation)
        self.asked: list[tuple[str, str]] = []

    async def similar(self, user_id: str, query: str, limit: int) -> Similarities:
        self.asked.append((user_id, query))
        if self.answers is None:
            raise TimeoutError("embedding provider timed out")
        # With a spread: as a store big enough for a similarity's standing to count;
        # without, a store of as many memories as it answers for (too small for one).
        count = MIN_STORE_FOR_STANDING if self.spread[1] > 0 else len(self.answers)
        return Similarities(self.answers, *self.spread, count)


async def _recall_with(
    services: Services, source: FixedSimilarity, query: str, min_confidence: float | None = None
) -> list[RecallHit]:
    async with services.db.unit_of_work() as session:
        recall = RecallService(
            session, services.settings, services.analyzer, services.clock, semantic=source
        )
        return await recall.recall_memories(
            "u", query, 5, track=False, min_confidence=min_confidence
        )


async def test_a_semantic_source_adds_candidates_and_its_signal(
    services: Services, clock: FakeClock
) -> None:
    tea = await services.add("u", "I drink green tea every morning")
    clock.advance(hours=1)
    beverage = await services.add("u", "Matcha latte is my favourite")
    # The source's cosines: ranked relative to the best, weighed as evidence as they are;
    # both stand out of the store's spread (5 and 4.8 deviations above its mean).
    source = FixedSimilarity({beverage.id: 0.6, tea.id: 0.58}, mean=0.1, deviation=0.1)
    hits = await _recall_with(services, source, "green tea")
    assert source.asked == [("u", "green tea")]
    assert ids(hits) == [tea.id, beverage.id]
    assert hits[1].relevance == 0.0
    assert hits[1].signals["semantic"].value == 1.0
    assert hits[0].signals["semantic"].value == pytest.approx(math.exp(-0.02 / 0.05))
    assert hits[1].score == pytest.approx(
        1.0 * hits[1].signals["semantic"].weight + 0.1 * hits[1].importance
    )
    assert hits[1].evidence is not None
    assert hits[1].evidence.semantic == 0.6
    assert hits[1].evidence.standing == pytest.approx(5.0)


async def test_a_similarity_that_does_not_stand_out_of_the_store_is_no_evidence(
    services: Services, clock: FakeClock
) -> None:
    tea = await services.add("u", "I drink green tea every morning")
    clock.advance(hours=1)
    beverage = await services.add("u", "Matcha latte is my favourite")
    # The same cosines in a store where everything scores about as high: 0.6 is half a
    # deviation above the mean, below RECALL_SEMANTIC_STANDING, so the latte has no
    # evidence (though 0.6 is above the absolute SEMANTIC_FLOOR) and stays out.
    source = FixedSimilarity({beverage.id: 0.6, tea.id: 0.58}, mean=0.55, deviation=0.1)
    assert services.settings.recall_semantic_standing > 0.5
    hits = await _recall_with(services, source, "green tea", min_confidence=0.0)
    assert ids(hits) == [tea.id]
    assert hits[0].evidence is not None
    assert hits[0].evidence.standing == pytest.approx(0.3)


async def test_in_a_store_too_small_for_a_standing_similarity_is_judged_by_cosine(
    services: Services, clock: FakeClock
) -> None:
    # The constants with a semantic source were fitted on stores where every similarity
    # had a standing; a store of two has none, and is judged by the constants fitted on
    # cosines alone: a word-for-word match passes the default floor, and so does a close
    # paraphrase (0.6), while a faint one (0.3) does not.
    tea = await services.add("u", "I drink green tea every morning")
    clock.advance(hours=1)
    beverage = await services.add("u", "Matcha latte is my favourite")
    clock.advance(hours=1)
    bike = await services.add("u", "My bike needs a new chain")
    source = FixedSimilarity({beverage.id: 0.6, tea.id: 0.58, bike.id: 0.3})
    hits = await _recall_with(services, source, "green tea")
    assert set(ids(hits)) == {tea.id, beverage.id}
    assert all(h.evidence is not None and h.evidence.standing is None for h in hits)
    for h in hits:
        assert h.evidence is not None
        assert h.confidence is not None
        assert h.confidence == pytest.approx(confidence(h.evidence, False, True, small_store=True))
        assert h.confidence >= services.settings.recall_min_confidence
    ranked = await _recall_with(services, source, "green tea", min_confidence=0.0)
    assert bike.id not in ids(hits)
    assert ids(ranked)[0] == tea.id


async def test_a_failing_semantic_source_degrades_with_a_warning(
    services: Services, caplog: pytest.LogCaptureFixture
) -> None:
    tea = await services.add("u", "I drink green tea every morning")
    with caplog.at_level(logging.WARNING, logger="services.recall.recall_service"):
        hits = await _recall_with(services, FixedSimilarity(None), "green tea")
    assert ids(hits) == [tea.id]
    assert hits[0].signals["semantic"].value == 0.0
    assert "semantic source failed" in caplog.text


async def test_mmr_spreads_near_repeats(services: Services, clock: FakeClock) -> None:
    texts = [
        "green tea green tea every morning at home",
        "green tea green tea every morning at work",
        "green tea with lunch",
    ]
    stored = []
    for text in texts:
        stored.append(await services.add("u", text))
        clock.advance(hours=1)
    # Ranking, not the floor: "with lunch" holds two of the three words, below 0.7.
    plain = await services.recall(
        "u", "green tea morning", top_k=3, track=False, min_confidence=0.0
    )
    assert ids(plain)[2] == stored[2].id
    services.settings = services.settings.model_copy(update={"recall_mmr_lambda": 0.3})
    varied = await services.recall(
        "u", "green tea morning", top_k=3, explain=True, min_confidence=0.0
    )
    assert ids(varied)[1] == stored[2].id
    assert varied[1].max_similarity < varied[2].max_similarity
    assert varied[2].explanation is not None
    assert varied[2].explanation["diversity"]["lambda"] == 0.3


async def test_weights_come_from_settings_per_query_type(services: Services) -> None:
    await services.add("u", "green tea every morning")
    services.settings = Settings(
        _env_file=None,
        database_url="sqlite://",
        recall_weights_default=SignalWeights(lexical=2.0),
        recall_mmr_lambda=1.0,
    )
    (hit,) = await services.recall("u", "green tea")
    assert hit.score == pytest.approx(2.0)
    assert services.settings.recall_weights("unknown") == services.settings.recall_weights_default


async def test_a_conversational_query_prefers_what_was_said_lately(
    services: Services, clock: FakeClock
) -> None:
    recent = await services.add("u", "the green tea from Hangzhou")
    clock.advance(hours=1)
    old = await services.add(
        "u", "the green tea from Fujian", created_at=datetime(2025, 11, 1, tzinfo=UTC)
    )
    plain = await services.recall("u", "green tea", explain=True, track=False)
    assert plain[0].signals["recency"].weight == 0.0  # a default query ignores recency
    hits = await services.recall("u", "that green tea again", explain=True, track=False)
    assert ids(hits) == [recent.id, old.id]
    assert hits[0].signals["recency"].value > 0.9 > 0.1 > hits[1].signals["recency"].value
    assert hits[0].signals["recency"].weight == 0.3
    assert hits[0].score - hits[1].score > plain[0].score - plain[1].score + 0.2
    assert hits[0].explanation is not None
    assert hits[0].explanation["query_type"] == "conversational"


async def test_a_long_query_is_understood_off_the_event_loop_with_the_same_result(
    services: Services,
) -> None:
    # Short queries are analysed inline, long ones in a worker thread: same ranking.
    hiking = await services.add("u", "We went hiking in the hills near Lisbon")
    await services.add("u", "Dinner with my sister at the harbour")
    short = "hiking near Lisbon"
    padded = short + " " + "!" * INLINE_QUERY_CHARS  # punctuation: no new terms
    assert len(short) <= INLINE_QUERY_CHARS < len(padded)
    inline = await services.recall("u", short, top_k=2, track=False)
    threaded = await services.recall("u", padded, top_k=2, track=False)
    assert ids(inline)[0] == hiking.id
    assert [(h.memory.id, h.score) for h in threaded] == [(h.memory.id, h.score) for h in inline]
