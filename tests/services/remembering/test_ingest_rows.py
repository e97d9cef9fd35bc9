"""What a batch writes, field by field, and how it merges near-duplicates inside itself.

`make mutation` found the batch's row dictionary, its topic links and its in-batch
near-duplicate search unchecked: a renamed column fell back to its default, and every
in-batch repeat of the older tests was an exact one (same content hash).
"""

from __future__ import annotations

from sqlalchemy import select

from models import MemoryAssociation, MemoryScoreHistory
from services.remembering.memory_service import MemoryService, NewMemory
from services.remembering.near_duplicates import rarity_key
from tests.factories import Services

WORDS = [
    "quartz",
    "violin",
    "harbor",
    "mango",
    "pencil",
    "rocket",
    "tulip",
    "walnut",
    "saddle",
    "copper",
]


async def _add_many(services: Services, items: list[NewMemory]) -> list[tuple[int, bool]]:
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, services.clock)
        return [(s.memory.id, s.merged) for s in await service.add_many("u", items)]


async def test_a_new_memory_is_stored_with_every_field_the_batch_computed(
    services: Services,
) -> None:
    item = NewMemory(
        content="Python 项目的部署脚本需要重写",
        memory_type="todo",
        metadata={"from": "chat"},
    )
    [(memory_id, merged)] = await _add_many(services, [item])
    stored = await services.get("u", memory_id)
    analysis = services.analyzer.analyze(item.content)
    assert merged is False
    assert (stored.memory_type, stored.meta) == ("todo", {"from": "chat"})
    assert (stored.topics, stored.doc_length) == (analysis.topics, analysis.doc_length)
    assert stored.doc_length > 0
    assert stored.topics != []
    assert (stored.recall_count, stored.mention_count, stored.last_mentioned_at) == (0, 1, None)


async def test_a_memory_repeated_inside_its_batch_was_mentioned_now(services: Services) -> None:
    [(first, _), (again, merged)] = await _add_many(
        services, [NewMemory(content="water the ferns"), NewMemory(content="water the ferns")]
    )
    assert (again, merged) == (first, True)
    stored = await services.get("u", first)
    assert (stored.mention_count, stored.last_mentioned_at) == (2, services.clock())


async def test_new_memories_of_one_batch_link_by_their_shared_topics(services: Services) -> None:
    outcomes = await _add_many(
        services,
        [
            NewMemory(content="Python 项目的部署脚本需要重写"),
            NewMemory(content="Python 项目的测试覆盖率太低"),
        ],
    )
    ids = sorted(i for i, _ in outcomes)
    async with services.db.unit_of_work() as session:
        links = (await session.scalars(select(MemoryAssociation))).all()
    assert [(link.memory_id_a, link.memory_id_b, link.kind) for link in links] == [
        (ids[0], ids[1], "topic")
    ]
    shared = links[0].shared_topics
    assert shared != []
    assert set(shared) <= set((await services.get("u", ids[0])).topics)
    assert links[0].weight == float(len(shared))
    assert [(await services.get("u", i)).associated_count for i in ids] == [1, 1]


async def test_a_near_duplicate_inside_the_batch_merges_into_its_statement(
    services: Services,
) -> None:
    # Not the same content hash (啊 differs): the in-batch near-duplicate search merges it.
    a, b = (
        await services.add("u", "我很担心下周的考试"),
        await services.add("u", "项目进度需要每周汇报"),
    )
    outcomes = await _add_many(
        services,
        [
            NewMemory(content="明天要去机场接我妈妈回家"),
            NewMemory(content="明天要去机场接我妈妈回家啊"),
            NewMemory(content="我很担心下周的考试啊"),
            NewMemory(content="项目进度需要每周汇报吧"),
        ],
    )
    new_id = outcomes[0][0]
    assert outcomes == [(new_id, False), (new_id, True), (a.id, True), (b.id, True)]
    counts = [(await services.get("u", i)).mention_count for i in (new_id, a.id, b.id)]
    assert counts == [2, 2, 2]
    async with services.db.unit_of_work() as session:
        reasons = await session.scalars(
            select(MemoryScoreHistory.reason).where(MemoryScoreHistory.memory_id == a.id)
        )
        assert sorted(reasons) == ["mention", "write"]


async def test_a_repeat_of_two_near_duplicates_goes_to_the_newest_on_a_tie(
    services: Services,
) -> None:
    # first and last hold 17 of the repeat's 20 words each (Jaccard 0.85) but only 14 of
    # each other's 20 (0.7), so both stay; the repeat is equally close to both, and the
    # candidates are ranked most probe terms held first, then newest.
    words = [f"{w}{n}" for n in ("a", "b") for w in WORDS]
    first = await services.add("u", " ".join(words[:17]))
    last = await services.add("u", " ".join(words[3:]))
    assert first.id != last.id
    repeat = await services.add("u", " ".join(words))
    assert repeat.id == last.id
    assert (await services.get("u", first.id)).mention_count == 1


async def test_a_repeat_adding_one_new_word_merges(services: Services) -> None:
    # Jaccard 6/7. The new word is new to the user, so of the repeat's four probe terms
    # (services/remembering/near_duplicates.py) exactly the three it needs are known.
    stored = await services.add("u", " ".join(WORDS[:6]))
    again = await services.add("u", " ".join(WORDS[:7]))
    assert again.id == stored.id
    assert again.mention_count == 2


async def test_inside_a_batch_the_same_words_in_another_order_stay_apart(
    services: Services,
) -> None:
    # Every term shared (Jaccard 1.0) but the characters in another order (0.79).
    outcomes = await _add_many(
        services,
        [
            NewMemory(content="Joanna said bye to Nate today"),
            NewMemory(content="Nate said bye to Joanna today"),
        ],
    )
    assert [merged for _, merged in outcomes] == [False, False]


async def test_inside_a_batch_a_far_candidate_does_not_stop_the_search(
    services: Services,
) -> None:
    words = [f"{w}{n}" for n in ("a", "b") for w in WORDS]
    terms = {w: next(iter(services.analyzer.analyze(w).terms)) for w in words}
    rarest = sorted(words, key=lambda w: rarity_key(terms[w]))
    # far holds the repeat's 14 rarest-looking words (every probe term) and 6 others:
    # a candidate, Jaccard 14/26. near lacks 3 of the commonest-looking: Jaccard 17/20.
    far = [*rarest[:14], "elm", "oak", "ash", "fir", "yew", "bay"]
    near = [w for w in words if w not in rarest[-3:]]
    outcomes = await _add_many(
        services, [NewMemory(content=" ".join(t)) for t in (far, near, words)]
    )
    assert [merged for _, merged in outcomes] == [False, False, True]
    assert outcomes[2][0] == outcomes[1][0]


async def test_inside_a_batch_a_jaccard_of_exactly_the_threshold_merges(
    services: Services,
) -> None:
    words = [f"{w}{n}" for n in ("a", "b") for w in WORDS]
    outcomes = await _add_many(
        services, [NewMemory(content=" ".join(words[:17])), NewMemory(content=" ".join(words))]
    )
    assert [merged for _, merged in outcomes] == [False, True]  # 17/20 = 0.85
