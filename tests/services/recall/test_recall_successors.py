"""A superseded match lends its BM25 to the memory that replaced it (RECALL_SUCCESSORS,
services/repositories/statements/bm25_sql.py), on both databases."""

from __future__ import annotations

import itertools

from models import UserMemory
from services.recall.recall_service import RecallHit
from services.remembering.memory_service import MemoryService
from tests.conftest import FakeClock
from tests.factories import Services


async def _recall(services: Services, user: str, query: str, **kw: object) -> list[RecallHit]:
    return await services.recall(user, query, 10, track=False, explain=True, **kw)


async def _moves(services: Services, clock: FakeClock, *said: str) -> list[UserMemory]:
    """User "u" says where they live, a month apart: each statement supersedes the last."""
    stored = []
    for text in said:
        stored.append(await services.add("u", text))
        clock.advance(days=30)
    for old, new in itertools.pairwise(stored):
        assert (await services.get("u", old.id)).superseded_by_id == new.id
    return stored


async def test_the_memory_that_replaced_a_match_answers_for_it(
    services: Services, clock: FakeClock
) -> None:
    beijing, shanghai = await _moves(services, clock, "我住在北京", "我搬到上海了")

    hits = await _recall(services, "u", "我住在哪里")

    assert [h.memory.id for h in hits] == [shanghai.id]
    hit = hits[0]
    assert hit.bm25 > 0
    assert hit.explanation is not None
    relevance = hit.explanation["relevance"]
    assert relevance["superseded_match"] == beijing.id
    # The terms shown are the superseded match's, and they add up to the hit's BM25.
    terms = relevance["matched_terms"]
    assert terms
    assert abs(sum(t["contribution"] for t in terms) - hit.bm25) < 1e-9


async def test_without_successors_the_question_finds_nothing(
    services: Services, clock: FakeClock
) -> None:
    await _moves(services, clock, "我住在北京", "我搬到上海了")
    services.settings.recall_successors = 0
    assert await _recall(services, "u", "我住在哪里") == []


async def test_a_chain_of_corrections_leads_to_the_current_end(
    services: Services, clock: FakeClock
) -> None:
    beijing, _, berlin = await _moves(
        services, clock, "I live in Beijing", "I moved to Shanghai", "I moved to Berlin"
    )

    hits = await _recall(services, "u", "Beijing")

    assert [h.memory.id for h in hits] == [berlin.id]
    assert hits[0].explanation is not None
    assert hits[0].explanation["relevance"]["superseded_match"] == beijing.id


async def test_a_successor_that_matches_better_keeps_its_own_score(
    services: Services, clock: FakeClock
) -> None:
    await services.add("u", "My manager is Ann")
    bo = await services.add("u", "My new manager is Bo, manager of managers")

    hits = await _recall(services, "u", "manager")

    assert [h.memory.id for h in hits] == [bo.id]
    assert hits[0].explanation is not None
    assert hits[0].explanation["relevance"]["superseded_match"] is None
    own = sum(t["contribution"] for t in hits[0].explanation["relevance"]["matched_terms"])
    assert abs(own - hits[0].bm25) < 1e-9


async def test_include_superseded_returns_the_match_itself(
    services: Services, clock: FakeClock
) -> None:
    beijing, _ = await _moves(services, clock, "我住在北京", "我搬到上海了")

    hits = await _recall(services, "u", "我住在哪里", include_superseded=True)

    assert beijing.id in {h.memory.id for h in hits}
    assert all(
        h.explanation is not None and h.explanation["relevance"]["superseded_match"] is None
        for h in hits
    )


async def test_a_type_filter_applies_to_the_match_and_to_its_successor(
    services: Services, clock: FakeClock
) -> None:
    await services.add("u", "I live in Beijing", memory_type="fact")
    clock.advance(days=30)
    await services.add("u", "I moved to Shanghai", memory_type="fact")
    clock.advance(days=30)
    lisbon = await services.add("u", "I live in Lisbon", memory_type="event")

    assert [h.memory.id for h in await _recall(services, "u", "Beijing")] == [lisbon.id]
    assert await _recall(services, "u", "Beijing", types=["fact"]) == []  # Lisbon is an event
    assert await _recall(services, "u", "Beijing", types=["event"]) == []  # Beijing is a fact


async def test_successors_never_cross_users(services: Services, clock: FakeClock) -> None:
    await _moves(services, clock, "I live in Beijing", "I moved to Shanghai")
    await services.add("v", "I moved to Paris")

    assert await _recall(services, "v", "Beijing") == []
    hits = await _recall(services, "u", "Beijing")
    assert [h.memory.content for h in hits] == ["I moved to Shanghai"]


async def test_a_memory_superseded_by_hand_lends_to_its_current_replacement(
    services: Services,
) -> None:
    old = await services.add("u", "the gym opens at 7")
    new = await services.add("u", "pool hours changed for weekdays")
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, services.clock)
        await service.supersede("u", old.id, new.id)

    hits = await _recall(services, "u", "gym")

    assert [h.memory.id for h in hits] == [new.id]
    assert hits[0].explanation is not None
    assert hits[0].explanation["relevance"]["superseded_match"] == old.id
