"""Fact correction through the real services on both databases (seed 001 §3.4)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TypeVar

import pytest

from models import UserMemory
from services.core.errors import InvalidInput, MemoryNotFound, NotSuperseded, SupersedeCycle
from services.remembering.memory_service import MemoryChanges, MemoryService, NewMemory
from services.repositories.facts import FactRepository
from tests.conftest import FakeClock
from tests.factories import Services

T = TypeVar("T")


async def _with(services: Services, work: Callable[[MemoryService], Awaitable[T]]) -> T:
    """Run ``work`` in its own unit of work, like one request."""
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, services.clock)
        return await work(service)


async def _listed(services: Services, user: str, include_superseded: bool = False) -> set[int]:
    page = await _with(
        services,
        lambda s: s.list_page(user, limit=100, include_superseded=include_superseded),
    )
    return {m.id for m in page.items}


async def _recalled(services: Services, user: str, query: str, **kw: object) -> list[UserMemory]:
    return [h.memory for h in await services.recall(user, query, 10, track=False, **kw)]


async def test_a_move_supersedes_the_old_residence(services: Services, clock: FakeClock) -> None:
    beijing = await services.add("u", "我住在北京")
    assert beijing.fact_slot == "residence"
    clock.advance(days=30)
    shanghai = await services.add("u", "我搬到上海了")
    old = await services.get("u", beijing.id)
    assert old.superseded_by_id == shanghai.id
    assert old.superseded_at == clock.now
    new = await services.get("u", shanghai.id)
    assert (new.fact_slot, new.superseded_by_id) == ("residence", None)
    # Kept for history, out of recall and of the default listing.
    assert await _listed(services, "u") == {shanghai.id}
    assert await _listed(services, "u", include_superseded=True) == {beijing.id, shanghai.id}
    assert [m.id for m in await _recalled(services, "u", "我住在哪里 北京 上海")] == [shanghai.id]


async def test_english_manager_change(services: Services) -> None:
    ann = await services.add("u", "My manager is Ann")
    bo = await services.add("u", "My new manager is Bo")
    assert (await services.get("u", ann.id)).superseded_by_id == bo.id
    assert [m.id for m in await _recalled(services, "u", "who is my manager")] == [bo.id]
    included = await _recalled(services, "u", "who is my manager", include_superseded=True)
    assert {m.id for m in included} == {ann.id, bo.id}
    assert {m.id: m.superseded_by_id for m in included} == {ann.id: bo.id, bo.id: None}


async def test_the_same_value_again_supersedes_nothing(services: Services) -> None:
    first = await services.add("u", "I live in Lisbon")
    second = await services.add("u", "I still live in Lisbon these days, love it")
    assert first.id != second.id
    assert (await services.get("u", first.id)).superseded_by_id is None
    assert await _listed(services, "u") == {first.id, second.id}


async def test_other_slots_and_plain_memories_are_untouched(services: Services) -> None:
    home = await services.add("u", "I live in Lisbon")
    note = await services.add("u", "I water the plants on Sundays")
    await services.add("u", "I work at Acme")
    assert (await services.get("u", home.id)).superseded_by_id is None
    assert (await services.get("u", note.id)).fact_slot is None


async def test_within_a_batch_the_later_statement_wins(services: Services) -> None:
    stored = await _with(
        services,
        lambda s: s.add_many(
            "u",
            [
                NewMemory("I live in Rome"),
                NewMemory("I moved to Milan"),
                NewMemory("I water the plants on Sundays"),
                NewMemory("I moved to Turin"),
            ],
        ),
    )
    rome, milan, _, turin = (s.memory for s in stored)
    assert rome.superseded_by_id == milan.id
    assert milan.superseded_by_id == turin.id
    assert turin.superseded_by_id is None


async def test_imported_history_does_not_replace_todays_fact(services: Services) -> None:
    today = await services.add("u", "I live in Oslo")
    past = await services.add("u", "I live in Bergen", created_at=datetime(2020, 1, 1, tzinfo=UTC))
    assert past.superseded_by_id == today.id
    assert (await services.get("u", today.id)).superseded_by_id is None


async def test_correction_never_crosses_users(services: Services) -> None:
    alice = await services.add("alice", "I live in Paris")
    bob = await services.add("bob", "I moved to Rome")
    assert (await services.get("alice", alice.id)).superseded_by_id is None
    assert (await services.get("bob", bob.id)).superseded_by_id is None
    with pytest.raises(MemoryNotFound):
        await _with(services, lambda s: s.supersede("alice", alice.id, bob.id))
    with pytest.raises(MemoryNotFound):
        await _with(services, lambda s: s.supersede("bob", alice.id, bob.id))


async def test_deleting_the_newer_memory_restores_the_older(services: Services) -> None:
    a = await services.add("u", "My manager is Ann")
    b = await services.add("u", "My manager is Bo")
    c = await services.add("u", "My manager is Cy")
    assert (await services.get("u", b.id)).superseded_by_id == c.id
    await _with(services, lambda s: s.delete("u", b.id))  # the middle: Ann now points at Cy
    assert (await services.get("u", a.id)).superseded_by_id == c.id
    await _with(services, lambda s: s.delete("u", c.id))  # the current one: Ann is back
    back = await services.get("u", a.id)
    assert (back.superseded_by_id, back.superseded_at) == (None, None)
    assert [m.id for m in await _recalled(services, "u", "manager")] == [a.id]


async def test_editing_recomputes_the_slot(services: Services) -> None:
    home = await services.add("u", "I live in Paris")
    moved = await services.add("u", "I moved to Rome")
    assert (await services.get("u", home.id)).superseded_by_id == moved.id
    # The newer memory no longer speaks of residence: the older one is current again.
    edited = await _with(
        services, lambda s: s.update("u", moved.id, MemoryChanges(content="I work at Acme"))
    )
    assert (edited.fact_slot, edited.superseded_by_id) == ("employer", None)
    assert (await services.get("u", home.id)).superseded_by_id is None
    # An edit into the slot with a later date supersedes the current one again.
    await _with(
        services, lambda s: s.update("u", moved.id, MemoryChanges(content="I moved to Rome"))
    )
    assert (await services.get("u", home.id)).superseded_by_id == moved.id


async def test_explicit_supersede_and_restore(services: Services) -> None:
    old = await services.add("u", "the gym opens at 7")
    new = await services.add("u", "the gym now opens at 6 on weekdays")
    done = await _with(services, lambda s: s.supersede("u", old.id, new.id))
    assert (done.superseded_by_id, done.superseded_at) == (new.id, services.clock())
    assert await _listed(services, "u") == {new.id}
    with pytest.raises(SupersedeCycle):
        await _with(services, lambda s: s.supersede("u", new.id, old.id))
    with pytest.raises(InvalidInput):
        await _with(services, lambda s: s.supersede("u", old.id, old.id))
    restored = await _with(services, lambda s: s.restore("u", old.id))
    assert (restored.superseded_by_id, restored.superseded_at) == (None, None)
    assert await _listed(services, "u") == {old.id, new.id}
    with pytest.raises(NotSuperseded):
        await _with(services, lambda s: s.restore("u", old.id))


async def test_a_longer_cycle_is_refused(services: Services) -> None:
    a = await services.add("u", "note one about the garden")
    b = await services.add("u", "note two about the kitchen")
    c = await services.add("u", "note three about the garage")
    await _with(services, lambda s: s.supersede("u", a.id, b.id))
    await _with(services, lambda s: s.supersede("u", b.id, c.id))
    with pytest.raises(SupersedeCycle):
        await _with(services, lambda s: s.supersede("u", c.id, a.id))
    assert (await services.get("u", c.id)).superseded_by_id is None


async def test_empty_query_recall_leaves_superseded_out(services: Services) -> None:
    old = await services.add("u", "我的经理是王芳，很重要")
    new = await services.add("u", "我的经理是李雷")
    assert (await services.get("u", old.id)).superseded_by_id == new.id
    assert [m.id for m in await _recalled(services, "u", "")] == [new.id]
    everything = await _recalled(services, "u", "", include_superseded=True)
    assert {m.id for m in everything} == {old.id, new.id}


async def test_continuity_neighbours_leave_superseded_out(services: Services) -> None:
    # A superseded memory said right after a strong hit is not lent continuity.
    hit = await services.add("u", "What colour is the new sofa in the living room")
    old = await services.add("u", "I live in Paris")
    new = await services.add("u", "I moved to Rome")
    assert (await services.get("u", old.id)).superseded_by_id == new.id
    ids = [m.id for m in await _recalled(services, "u", "new sofa living room colour")]
    assert hit.id in ids
    assert old.id not in ids


async def test_repeating_a_superseded_fact_makes_it_current_again(
    services: Services, clock: FakeClock
) -> None:
    beijing = await services.add("u", "我住在北京")
    clock.advance(days=1)
    shanghai = await services.add("u", "我搬到上海了")
    clock.advance(days=1)
    again = await services.add("u", "我住在北京。")  # merges into the first memory
    assert again.id == beijing.id
    assert (again.superseded_by_id, again.superseded_at) == (None, None)
    old = await services.get("u", shanghai.id)
    assert (old.superseded_by_id, old.superseded_at) == (beijing.id, clock.now)
    # Repeating the current fact changes nothing.
    clock.advance(days=1)
    await services.add("u", "我住在北京")
    assert (await services.get("u", beijing.id)).superseded_by_id is None
    assert (await services.get("u", shanghai.id)).superseded_by_id == beijing.id


async def test_one_statement_writes_many_links_each_to_its_own_newer(
    services: Services, clock: FakeClock
) -> None:
    old = [await services.add("u", f"note {n} about the garden") for n in range(3)]
    moved, manager = [await services.add("u", f"later note {n}") for n in range(2)]
    other = await services.add("bob", "bob's note about the garden")
    clock.advance(days=1)
    replaced = {old[0].id: moved.id, old[1].id: moved.id, old[2].id: manager.id}
    # Bob's memory in u's mapping: the user scope must keep his row out of it.
    async with services.db.unit_of_work() as session:
        await FactRepository(session).supersede("u", {**replaced, other.id: moved.id}, clock.now)
    for memory_id, by in replaced.items():
        row = await services.get("u", memory_id)
        assert (row.superseded_by_id, row.superseded_at) == (by, clock.now)
    assert (await services.get("u", moved.id)).superseded_by_id is None
    assert (await services.get("bob", other.id)).superseded_by_id is None
