"""Embeddings on both databases against a real loopback provider: write-time vectors,
per-user search, degradation, the backfill job, and recall of a paraphrase."""

from __future__ import annotations

import logging

import pytest

from models import UserMemory
from services.core.settings import Settings
from services.embeddings.jobs import EMBED_JOB, run_embedding_backfill
from services.embeddings.service import Embeddings, build_embeddings
from services.embeddings.vectors import dot, from_bytes
from services.recall.recall_service import RecallHit, RecallService
from services.remembering.memory_service import MemoryChanges, MemoryService, NewMemory
from services.repositories.embeddings import EmbeddingRepository
from tests.conftest import FakeClock
from tests.factories import Services
from tests.providers import ProviderServer, timeout_for

PARAPHRASE = "Ann, my sister, resides in Lisbon"
DISTRACTORS = ["I walk the dog at seven", "The guitar needs new strings", "Bought bread today"]
# Shares no word (nor stem) with PARAPHRASE; the toy model maps them to the same concepts.
QUERY = "which town is the sibling's home"


def embedding_settings(settings: Settings, provider: ProviderServer, **extra: object) -> Settings:
    return settings.model_copy(
        update={
            "embedding_provider": "openai",
            "embedding_base_url": provider.base_url,
            "embedding_model": "toy",
            "embedding_timeout": timeout_for(provider.mode),
            "embedding_at_write": True,  # these tests are of write-time vectors
            **extra,
        }
    )


@pytest.fixture
def embeddings(
    settings: Settings, provider: ProviderServer, request: pytest.FixtureRequest
) -> Embeddings:
    # A test of the held ("slow") provider gives up at once; the others wait for answers.
    callspec = getattr(request.node, "callspec", None)
    mode = callspec.params.get("mode", "ok") if callspec else "ok"
    timeout = {"embedding_timeout": timeout_for(mode)}
    built = build_embeddings(embedding_settings(settings, provider, **timeout))
    assert built is not None
    return built


async def add(
    services: Services, embeddings: Embeddings | None, user: str, *texts: str
) -> list[UserMemory]:
    async with services.db.unit_of_work() as session:
        service = MemoryService(
            session, services.settings, services.analyzer, services.clock, embeddings
        )
        stored = await service.add_many(user, [NewMemory(content=t) for t in texts])
        return [s.memory for s in stored]


async def models_of(services: Services, user: str) -> dict[str, int]:
    async with services.db.unit_of_work() as session:
        return await EmbeddingRepository(session).models(user)


async def recall(
    services: Services,
    embeddings: Embeddings | None,
    user: str,
    query: str,
    min_confidence: float | None = None,
) -> list[RecallHit]:
    async with services.db.unit_of_work() as session:
        semantic = embeddings.source(session) if embeddings else None
        service = RecallService(
            session, services.settings, services.analyzer, services.clock, semantic=semantic
        )
        return await service.recall_memories(
            user, query, 5, track=False, explain=True, min_confidence=min_confidence
        )


async def test_vectors_are_stored_at_write_time_with_the_model_name(
    services: Services, embeddings: Embeddings, provider: ProviderServer
) -> None:
    first, second, repeat = await add(
        services, embeddings, "u", PARAPHRASE, "I walk the dog at seven", PARAPHRASE
    )
    assert repeat.id == first.id  # merged: no second vector
    # One batched call for the whole write.
    assert provider.paths() == ["/v1/embeddings"]
    assert provider.requests[0][1] == {
        "model": "toy",
        "input": [PARAPHRASE, DISTRACTORS[0], PARAPHRASE],
    }
    # The provider's model, and no "+turns" suffix: turns are embedded alone by default.
    assert await models_of(services, "u") == {"openai:toy": 2}
    async with services.db.unit_of_work() as session:
        rows = dict(await EmbeddingRepository(session).vectors("u", "openai:toy"))
    assert set(rows) == {first.id, second.id}
    vector = from_bytes(rows[first.id])
    assert len(vector) == 12
    assert dot(vector, vector) == pytest.approx(1.0, abs=1e-5)  # stored normalised


@pytest.mark.parametrize("mode", ["error", "slow", "malformed", "garbage", "wrong_count"])
async def test_a_failing_provider_never_fails_a_write(
    services: Services,
    embeddings: Embeddings,
    provider: ProviderServer,
    mode: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    provider.mode = mode
    with caplog.at_level(logging.WARNING, logger="services.embeddings.service"):
        (memory,) = await add(services, embeddings, "u", PARAPHRASE)
    assert memory.id > 0
    assert (await services.get("u", memory.id)).content == PARAPHRASE
    assert await models_of(services, "u") == {}
    assert "stored without vectors" in caplog.text


async def test_vector_search_reads_only_the_users_own_vectors(
    services: Services, embeddings: Embeddings
) -> None:
    (mine,) = await add(services, embeddings, "alice", PARAPHRASE)
    (theirs,) = await add(services, embeddings, "bob", PARAPHRASE)
    async with services.db.unit_of_work() as session:
        found = (await embeddings.source(session).similar("alice", QUERY, 10)).cosines
        nobody = await embeddings.source(session).similar("carol", QUERY, 10)
    assert set(found) == {mine.id}
    assert theirs.id not in found
    assert 0.0 < found[mine.id] <= 1.0
    assert nobody.cosines == {}
    assert nobody.count == 0


async def test_recall_with_a_semantic_source_finds_a_paraphrase_sharing_no_word(
    services: Services, embeddings: Embeddings
) -> None:
    memories = await add(services, embeddings, "u", PARAPHRASE, *DISTRACTORS)
    # Finding, not the floor: a store of four has no standing (at floor 0 any memory with
    # evidence comes back, so the first check could fail).
    without = await recall(services, None, "u", QUERY, min_confidence=0.0)
    assert memories[0].id not in [h.memory.id for h in without]
    hits = await recall(services, embeddings, "u", QUERY, min_confidence=0.0)
    assert hits[0].memory.id == memories[0].id
    semantic = hits[0].signals["semantic"]
    assert semantic.value > 0.5
    assert semantic.weight > 0
    assert hits[0].signals["lexical"].value == 0.0
    assert hits[0].explanation is not None
    assert hits[0].explanation["signals"]["semantic"]["contribution"] == pytest.approx(
        semantic.value * semantic.weight
    )


@pytest.mark.parametrize("mode", ["error", "slow", "malformed"])
async def test_a_failing_provider_degrades_recall_to_the_other_signals(
    services: Services,
    embeddings: Embeddings,
    provider: ProviderServer,
    mode: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    memories = await add(services, embeddings, "u", PARAPHRASE, *DISTRACTORS)
    provider.mode = mode
    with caplog.at_level(logging.WARNING, logger="services.recall.recall_service"):
        hits = await recall(services, embeddings, "u", "the dog")
    assert [h.memory.id for h in hits][:1] == [memories[1].id]
    assert all(h.signals["semantic"].value == 0.0 for h in hits)
    assert "semantic source failed" in caplog.text


async def test_a_cached_users_vectors_follow_edits_and_deletes(
    services: Services, embeddings: Embeddings
) -> None:
    memory, dog = await add(services, embeddings, "u", PARAPHRASE, DISTRACTORS[0])
    async with services.db.unit_of_work() as session:
        before = (await embeddings.source(session).similar("u", QUERY, 10)).cosines
    assert max(before, key=before.__getitem__) == memory.id
    async with services.db.unit_of_work() as session:
        service = MemoryService(
            session, services.settings, services.analyzer, services.clock, embeddings
        )
        await service.update("u", memory.id, MemoryChanges(content="Practised piano music"))
        await service.delete("u", dog.id)
    async with services.db.unit_of_work() as session:
        after = (await embeddings.source(session).similar("u", "guitar instrument", 10)).cosines
    assert set(after) == {memory.id}  # the new text's vector; the deleted one is gone


async def test_an_edit_the_provider_cannot_embed_drops_the_stale_vector(
    services: Services, embeddings: Embeddings, provider: ProviderServer
) -> None:
    (memory,) = await add(services, embeddings, "u", PARAPHRASE)
    provider.mode = "error"
    async with services.db.unit_of_work() as session:
        service = MemoryService(
            session, services.settings, services.analyzer, services.clock, embeddings
        )
        await service.update("u", memory.id, MemoryChanges(content="Practised piano music"))
    assert await models_of(services, "u") == {}


async def test_backfill_fills_missing_vectors_and_replaces_another_models(
    services: Services, embeddings: Embeddings, provider: ProviderServer, clock: FakeClock
) -> None:
    old_settings = embedding_settings(services.settings, provider, embedding_model="old")
    old = build_embeddings(old_settings)
    assert old is not None
    (by_old,) = await add(services, old, "alice", PARAPHRASE)
    (missing,) = await add(services, None, "bob", DISTRACTORS[0])
    (current,) = await add(services, embeddings, "bob", DISTRACTORS[1])
    assert await models_of(services, "alice") == {"openai:old": 1}
    provider.requests.clear()
    settings = embedding_settings(services.settings, provider, embedding_backfill_batch=1)
    clock.advance(minutes=5)
    run = await run_embedding_backfill(services.db, settings, clock, embeddings, trigger="manual")
    assert (run.job, run.status, run.rows, run.error) == (EMBED_JOB, "succeeded", 2, None)
    assert run.finished_at == clock.now
    assert await models_of(services, "alice") == {"openai:toy": 1}
    assert await models_of(services, "bob") == {"openai:toy": 2}
    # Batches of one, the newest first, and the memory that already had a current vector
    # was not re-sent.
    sent = [body["input"] for _, body in provider.requests]
    assert sent == [[DISTRACTORS[0]], [PARAPHRASE]]
    async with services.db.unit_of_work() as session:
        repository = EmbeddingRepository(session)
        assert [i for i, _ in await repository.vectors("alice", "openai:toy")] == [by_old.id]
        bobs = {i for i, _ in await repository.vectors("bob", "openai:toy")}
    assert bobs == {missing.id, current.id}
    again = await run_embedding_backfill(services.db, settings, clock, embeddings)
    assert (again.status, again.rows) == ("succeeded", 0)


async def test_backfill_of_one_user_leaves_the_others(
    services: Services, embeddings: Embeddings
) -> None:
    await add(services, None, "alice", PARAPHRASE)
    await add(services, None, "bob", PARAPHRASE)
    run = await run_embedding_backfill(
        services.db, services.settings, services.clock, embeddings, user_id="alice"
    )
    assert (run.status, run.rows, run.user_id) == ("succeeded", 1, "alice")
    assert await models_of(services, "alice") == {"openai:toy": 1}
    assert await models_of(services, "bob") == {}


async def test_a_failing_backfill_is_recorded_and_the_next_run_catches_up(
    services: Services,
    embeddings: Embeddings,
    provider: ProviderServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    await add(services, None, "u", PARAPHRASE, DISTRACTORS[0])
    provider.mode = "error"
    with caplog.at_level(logging.WARNING, logger="services.embeddings.jobs"):
        failed = await run_embedding_backfill(
            services.db, services.settings, services.clock, embeddings
        )
    assert failed.status == "failed"
    assert failed.error is not None
    assert "500" in failed.error
    assert "embedding backfill run" in caplog.text
    provider.mode = "ok"
    done = await run_embedding_backfill(services.db, services.settings, services.clock, embeddings)
    assert (done.status, done.rows) == ("succeeded", 2)


async def test_a_deleted_memory_is_skipped_when_its_vector_arrives(
    services: Services, embeddings: Embeddings, clock: FakeClock
) -> None:
    (memory,) = await add(services, None, "u", PARAPHRASE)
    (vector,) = await embeddings.embed([PARAPHRASE])
    async with services.db.unit_of_work() as session:
        service = MemoryService(session, services.settings, services.analyzer, clock)
        await service.delete("u", memory.id)
    async with services.db.unit_of_work() as session:
        stored = await embeddings.store(session, "u", [(memory.id, vector, PARAPHRASE)], clock.now)
    assert stored == 0
    assert await models_of(services, "u") == {}


def test_no_provider_by_default_and_openai_needs_a_base_url(settings: Settings) -> None:
    assert settings.embedding_provider == "none"
    assert build_embeddings(settings) is None
    with pytest.raises(ValueError, match="EMBEDDING_BASE_URL"):
        build_embeddings(settings.model_copy(update={"embedding_provider": "openai"}))
