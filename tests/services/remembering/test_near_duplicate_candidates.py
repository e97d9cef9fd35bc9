"""Near-duplicate candidates: counted in the database for a few texts, in Python for many,
the same answer either way (services/remembering/frequency.py, FrequencyTracker._candidates)."""

from __future__ import annotations

from services.remembering.frequency import FEW_TEXTS, FrequencyTracker
from services.remembering.memory_service import MemoryService, NewMemory
from services.remembering.near_duplicates import NEAR_DUPLICATE_CANDIDATES, probe
from services.repositories.memories import MemoryRepository
from services.repositories.search import SearchRepository
from tests.factories import Services

# Statements sharing words to different degrees, so candidates hold different counts.
STORED = [
    "my sister Anna moved to Berlin for her new job",
    "my sister Anna moved to Berlin last spring",
    "Anna found a new job in Berlin",
    "my brother moved to Paris for his new job",
    "the weather in Berlin was cold",
    "我妹妹安娜搬到柏林去做新工作了",
    "安娜在柏林找到了新工作",
    "今天柏林很冷",
]
PROBES = [
    "my sister Anna moved to Berlin for a new job",
    "Anna moved to Berlin",
    "我妹妹安娜搬到柏林做新工作",
    "nothing in common at all here",
]


async def _stored_ids(services: Services, user: str) -> list[int]:
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, services.clock)
        stored = await service.add_many(user, [NewMemory(content=t) for t in STORED])
        return [s.memory.id for s in stored]


async def test_few_and_many_texts_give_the_same_candidates(services: Services) -> None:
    ids = await _stored_ids(services, "u")
    await _stored_ids(services, "other")  # the same words, another user's memories
    analyses = [services.analyzer.analyze(t) for t in PROBES]
    # A low need, so the counts rank several candidates per text, not only the best.
    probes: list[tuple[list[str], int] | None] = [(sorted(set(a.terms)), 2) for a in analyses]
    async with services.db.unit_of_work() as session:
        search = SearchRepository(session)
        tracker = FrequencyTracker(MemoryRepository(session), search, services.settings)
        few = await tracker._candidates("u", probes)
        # Padded past FEW_TEXTS with texts that find nothing, the batch path answers.
        padding: list[tuple[list[str], int] | None] = [(["zzz-unknown"], 1)] * FEW_TEXTS
        many = await tracker._candidates("u", [*probes, None, *padding])
    assert len(many) == len(probes) + 1 + FEW_TEXTS
    assert many[: len(probes)] == few
    assert many[len(probes)] == []
    assert all(c == [] for c in many[len(probes) + 1 :])
    assert few[0][0] == ids[0]  # holds the most of the first text's terms
    assert set(few[0]) >= {ids[1], ids[2], ids[3]}
    assert few[2][0] == ids[5]
    assert few[3] == []
    assert all(set(c) <= set(ids) for c in few)  # never another user's memory
    assert all(len(c) <= NEAR_DUPLICATE_CANDIDATES for c in few)


async def test_candidates_rank_by_terms_held_then_newest(services: Services) -> None:
    ids = await _stored_ids(services, "u")
    analysis = services.analyzer.analyze(STORED[0])
    terms, _need = probe(analysis.terms, services.settings.near_duplicate_threshold)
    async with services.db.unit_of_work() as session:
        search = SearchRepository(session)
        holders = await search.holders(terms, "u")
        found = await search.most_held("u", terms, 1, NEAR_DUPLICATE_CANDIDATES)
    held = {i: sum(i in holders.get(t, set()) for t in terms) for i in ids}
    expected = sorted((i for i in ids if held[i] >= 1), key=lambda i: (-held[i], -i))
    assert found == expected
    assert len(found) >= 3
    # Ties on the count go to the newest: ids[0] and ids[1] hold the same probe terms.
    assert held[ids[0]] == held[ids[1]]
    assert found.index(ids[1]) < found.index(ids[0])
