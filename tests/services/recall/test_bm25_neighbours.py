"""The anchors' neighbours that the BM25 search reads (in its own statement on
PostgreSQL) are the ones NeighbourRepository.around walks, on both databases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import update

from models import UserMemory
from services.recall.relevance import field_weights
from services.repositories.neighbours import AroundHits, Neighbour, NeighbourRepository
from services.repositories.search import SearchRepository
from services.repositories.statements.bm25_sql import Bm25Query
from tests.factories import Services

T0 = datetime(2024, 3, 1, 9, 0, tzinfo=UTC)


async def _conversations(services: Services) -> None:
    """Two conversations of one user told at overlapping times, with ties in created_at, a
    superseded memory, another type, a far-away memory, statements outside any
    conversation (no neighbours); another user beside them."""
    said = [
        ("chat", 0, "coffee with Anna at the harbour", "event"),
        ("chat", 1, "she ordered a flat white", "other"),
        ("chat", 1, "I had tea instead", "preference"),  # same minute as the one before
        ("chat", 2, "coffee beans from Kenya are the best", "preference"),
        ("chat", 3, "we walked to the market", "event"),
        ("chat", 4, "the market sells coffee grinders", "fact"),
        ("chat", 5, "bought a grinder", "event"),
        ("chat", 90, "coffee again in the evening", "event"),  # outside the window
        ("notes", 1, "coffee budget for March", "fact"),  # another session
        ("notes", 2, "remember the grinder receipt", "todo"),
    ]
    for conversation, minute, content, kind in said:
        at = T0 + timedelta(minutes=minute)
        await services.add(
            "u", content, created_at=at, conversation_id=conversation, memory_type=kind
        )
    await services.add("u", "coffee without a session", created_at=T0)
    await services.add("u", "a second memory without one", created_at=T0 + timedelta(minutes=1))
    await services.add("other", "coffee for someone else", created_at=T0, conversation_id="chat")
    async with services.db.unit_of_work() as session:  # fact correction's mark
        await session.execute(
            update(UserMemory)
            .where(UserMemory.user_id == "u", UserMemory.content == "we walked to the market")
            .values(superseded_by_id=1)
        )


def _key(n: Neighbour) -> tuple[int, int, int]:
    return n.anchor_id, n.distance, n.memory_id


@pytest.mark.parametrize(
    ("types", "current_only", "spec"),
    [
        ((), True, AroundHits(5, 0.0, 2, timedelta(minutes=30))),
        ((), False, AroundHits(3, 0.5, 1, timedelta(minutes=30))),
        (("event", "preference"), True, AroundHits(5, 0.0, 3, timedelta(minutes=120))),
        ((), True, AroundHits(2, 0.0, 10, timedelta(minutes=2))),
    ],
)
async def test_the_search_reads_the_neighbours_around_reads(
    services: Services, types: tuple[str, ...], current_only: bool, spec: AroundHits
) -> None:
    await _conversations(services)
    s = services.settings
    query = Bm25Query(
        "u",
        field_weights(["coffe", "grinder", "market"], s),
        s.bm25_k1,
        s.bm25_b,
        limit=20,
        types=types,
        current_only=current_only,
        around=spec,
    )
    async with services.db.unit_of_work() as session:
        found = await SearchRepository(session).bm25_search(query)
        expected = await NeighbourRepository(session).around(
            "u",
            spec.pick(found.candidates),
            radius=spec.radius,
            window=spec.window,
            types=types,
            current_only=current_only,
        )
    assert expected  # the case has neighbours to compare
    assert sorted(found.neighbours, key=_key) == sorted(expected, key=_key)
    # Continuity stays inside one conversation: no anchor or neighbour is outside one.
    conversation = {m.id: m.conversation_id for _, m in found.candidates}
    for n in found.neighbours:
        assert n.sketch.conversation_id == conversation[n.anchor_id] is not None


async def test_no_spec_or_no_radius_reads_no_neighbours(services: Services) -> None:
    await _conversations(services)
    s = services.settings
    weights = field_weights(["coffe"], s)
    async with services.db.unit_of_work() as session:
        repo = SearchRepository(session)
        plain = await repo.bm25_search(Bm25Query("u", weights, s.bm25_k1, s.bm25_b, 20))
        flat = await repo.bm25_search(
            Bm25Query(
                "u", weights, s.bm25_k1, s.bm25_b, 20, around=AroundHits(5, 0.0, 0, timedelta(1))
            )
        )
    assert plain.candidates
    assert (plain.neighbours, flat.neighbours) == ([], [])


def test_anchors_are_the_best_scored_hits_at_least_that_relevant() -> None:
    from services.repositories.memories import MemorySketch

    def hit(mid: int) -> MemorySketch:
        return MemorySketch(mid, "x", 0.5, T0, "chat" if mid != 6 else None, "other", "user")

    # 6 is the best hit but in no conversation: it lends no continuity.
    scored = [(2.0, hit(1)), (4.0, hit(2)), (1.0, hit(3)), (4.0, hit(4)), (0.0, hit(5))]
    scored.append((4.0, hit(6)))
    spec = AroundHits(3, 0.5, 1, timedelta(minutes=5))
    assert [a.id for a in spec.pick(scored)] == [4, 2, 1]  # ties: the newer id first
    assert [a.id for a in AroundHits(9, 0.6, 1, timedelta(0)).pick(scored)] == [4, 2]
    assert [a.id for a in AroundHits(9, 0.0, 1, timedelta(0)).pick(scored)] == [4, 2, 1, 3]
    assert AroundHits(3, 0.5, 1, timedelta(0)).pick([]) == []
