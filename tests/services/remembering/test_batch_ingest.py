"""Batch ingest on both databases: merges inside a batch, kept frequencies, one scoring."""

from __future__ import annotations

from sqlalchemy import event, func, select

from models import MemoryScoreHistory, MemoryTerm, MemoryTermStat
from services.core.db import Database
from services.remembering.memory_service import MemoryChanges, MemoryService, NewMemory
from tests.factories import Services

NEAR = "I am really worried about the exam next week"
NEAR_AGAIN = "I am really worried about the exam next week!"
WORDS = ["budget", "travel", "garden", "hiring", "safety", "launch", "music", "tax"]


async def _add_many(services: Services, user: str, texts: list[str]) -> list[tuple[int, bool]]:
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, services.clock)
        stored = await service.add_many(user, [NewMemory(content=t) for t in texts])
        return [(s.memory.id, s.merged) for s in stored]


async def _frequencies(db: Database, user: str) -> tuple[dict[str, int], dict[str, int]]:
    """The kept document frequencies and the ones counted from the postings."""
    async with db.unit_of_work() as session:
        kept = await session.execute(
            select(MemoryTermStat.term, MemoryTermStat.df).where(
                MemoryTermStat.user_id == user, MemoryTermStat.df > 0
            )
        )
        counted = await session.execute(
            select(MemoryTerm.term, func.count())
            .where(MemoryTerm.user_id == user)
            .group_by(MemoryTerm.term)
        )
        return {t: int(n) for t, n in kept}, {t: int(n) for t, n in counted}


async def test_repeats_inside_one_batch_merge_into_its_first_statement(
    services: Services,
) -> None:
    outcomes = await _add_many(services, "u", [NEAR, "the cat is called Mimi", NEAR_AGAIN, NEAR])
    first = outcomes[0][0]
    assert [merged for _, merged in outcomes] == [False, False, True, True]
    assert outcomes[2][0] == outcomes[3][0] == first
    memory = await services.get("u", first)
    assert memory.mention_count == 3
    assert memory.frequency_count == 3
    async with services.db.unit_of_work() as session:
        rows = await session.execute(
            select(func.count()).where(MemoryScoreHistory.memory_id == first)
        )
        # Scored once, at the end of the batch.
        assert rows.scalar_one() == 1


async def test_a_later_batch_merges_a_near_duplicate_of_a_stored_memory(
    services: Services,
) -> None:
    [(first, _)] = await _add_many(services, "u", [NEAR])
    outcomes = await _add_many(services, "u", ["buy milk", NEAR_AGAIN])
    assert outcomes[1] == (first, True)
    assert outcomes[0][1] is False
    assert (await services.get("u", first)).mention_count == 2


async def test_a_batch_never_merges_into_another_users_memory(services: Services) -> None:
    [(theirs, _)] = await _add_many(services, "other", [NEAR])
    [(mine, merged)] = await _add_many(services, "u", [NEAR_AGAIN])
    assert not merged
    assert mine != theirs


async def test_document_frequencies_follow_adds_edits_and_deletes(services: Services) -> None:
    outcomes = await _add_many(
        services,
        "u",
        ["我的猫叫咪咪", "咪咪喜欢吃鱼", "I walk the dog every morning", "the dog likes fish"],
    )
    kept, counted = await _frequencies(services.db, "u")
    assert kept == counted
    assert kept["^鱼"] == 1
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, services.clock)
        await service.update("u", outcomes[0][0], MemoryChanges(content="我的狗叫旺财"))
        await service.delete("u", outcomes[3][0])
    kept, counted = await _frequencies(services.db, "u")
    assert kept == counted
    assert "fish" not in kept
    assert "^猫" not in kept


async def test_a_batch_goes_in_as_one_insert_whatever_its_rows_leave_empty(
    services: Services,
) -> None:
    # Rows with and without a source (NULL) must not split the batch into one INSERT
    # per run of alike rows.
    texts = [f"note {i}: the {word} report is due" for i, word in enumerate(WORDS)]
    items = [NewMemory(content=t, source=None if i % 2 else "chat") for i, t in enumerate(texts)]
    inserts: list[int] = []

    def count(conn: object, cursor: object, statement: str, *args: object) -> None:
        if statement.lstrip().upper().startswith("INSERT INTO USER_MEMORIES"):
            inserts.append(1)

    engine = services.db.engine.sync_engine
    event.listen(engine, "before_cursor_execute", count)
    try:
        async with services.db.unit_of_work() as session:
            service = MemoryService(session, services.settings, services.analyzer, services.clock)
            stored = await service.add_many("u", items)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len({s.memory.id for s in stored}) == len(texts)
    assert [s.memory.source for s in stored] == [i.source for i in items]
    assert len(inserts) == 1
