"""Fresh vectors, always: a write nudges the embedding backfill only once committed, a
write during a run is read by that run (however slow its batch), the newest memories are
embedded first, and one run at a time across processes on one database.

Driven by events against the real loopback provider: the provider blocks on an
``asyncio.Event`` until the test lets it go; the clock is the fake one. No test waits
on the wall clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from models import JobRun, MemoryEmbedding
from services.core.db import Database, build_engine
from services.core.settings import Settings
from services.embeddings.jobs import EMBED_JOB, run_embedding_backfill, verify_vectors
from services.embeddings.nudges import BackfillNudges
from services.embeddings.providers import Embedder, OpenAIEmbedder
from services.embeddings.service import Embeddings, source_hash
from services.embeddings.vectors import from_bytes
from services.remembering.memory_service import MemoryChanges, MemoryService, NewMemory
from services.repositories.embeddings import EmbeddingRepository
from services.scoring.scheduler import build_scheduler
from services.text.analysis import TextAnalyzer
from tests.conftest import BACKENDS, FakeClock
from tests.db_backends import migrated_copy
from tests.providers import ANSWER_TIMEOUT, ProviderServer
from tests.services.core.pg_waits import backend_pid, blocked_by

OLD = ["I walk the dog at seven", "The guitar needs new strings", "Bought bread today"]
NEW = "Ann, my sister, resides in Lisbon"


class GatedEmbedder:
    """The real loopback provider behind a gate: a call waits until the test opens it.

    ``entered`` is set when a call arrives; ``gate`` lets calls through (set it and every
    later call passes). ``sent`` is every text batch in order.
    """

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()
        self.sent: list[list[str]] = []

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def texts_per_call(self) -> int:
        return self.inner.texts_per_call

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        self.sent.append(list(texts))
        self.entered.set()
        await self.gate.wait()
        return await self.inner.embed(texts, query=query)

    async def warm(self) -> None:
        await self.inner.warm()


def backfill_settings(settings: Settings, provider: ProviderServer) -> Settings:
    return settings.model_copy(
        update={
            "embedding_provider": "openai",
            "embedding_base_url": provider.base_url,
            "embedding_model": "toy",
            "embedding_timeout": ANSWER_TIMEOUT,
            "embedding_at_write": False,  # writes leave their vectors to the backfill
            "embedding_backfill_batch": 1,
        }
    )


def gated(settings: Settings) -> tuple[Embeddings, GatedEmbedder, list[str]]:
    """Embeddings over a gated real provider, and the list its nudges' ``soon`` fills."""
    assert settings.embedding_base_url is not None
    embedder = GatedEmbedder(OpenAIEmbedder(settings.embedding_base_url, "toy", timeout=10))
    embeddings = Embeddings(embedder, settings)
    asked: list[str] = []
    embeddings.backfill.soon = lambda: asked.append("soon")
    return embeddings, embedder, asked


async def write(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    embeddings: Embeddings,
    user: str,
    *texts: str,
) -> list[int]:
    async with db.unit_of_work() as session:
        service = MemoryService(session, settings, analyzer, clock, embeddings)
        stored = await service.add_many(user, [NewMemory(content=t) for t in texts])
        return [s.memory.id for s in stored]


async def embedded(db: Database, embeddings: Embeddings, user: str) -> set[int]:
    async with db.unit_of_work() as session:
        rows = await EmbeddingRepository(session).vectors(user, embeddings.model)
    return {memory_id for memory_id, _ in rows}


async def add_then_fail(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    embeddings: Embeddings,
) -> None:
    """A unit of work that writes, then fails: it rolls back."""
    async with db.unit_of_work() as session:
        service = MemoryService(session, settings, analyzer, clock, embeddings)
        await service.add("u", NewMemory(content="Rolled back, never stored"))
        raise RuntimeError("the request failed")


def test_a_nudge_while_a_run_is_under_way_is_kept_for_it() -> None:
    nudges = BackfillNudges()
    asked: list[str] = []
    nudges.soon = lambda: asked.append("soon")
    nudges.nudge()
    assert asked == ["soon"]  # idle: a run is asked for
    with nudges.run():
        assert nudges.take()  # the run's first read sees that write
        nudges.nudge()
        assert asked == ["soon"]  # running: only marked, the run goes round again
        assert nudges.take()
        assert not nudges.take()
    assert asked == ["soon"]  # every nudge was read: nothing left to ask for
    with nudges.run():
        nudges.take()
        nudges.nudge()  # after the run's last read
    assert asked == ["soon", "soon"]  # the next run is asked for as this one ends


async def test_a_write_nudges_the_backfill_only_once_committed(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    configured = backfill_settings(settings, provider)
    embeddings, _, asked = gated(configured)
    async with db.unit_of_work() as session:
        service = MemoryService(session, configured, analyzer, clock, embeddings)
        await service.add_many("u", [NewMemory(content=t) for t in OLD])
        await service.add("u", NewMemory(content=NEW))
        assert asked == []  # not committed yet: a run now could not see it
    assert asked == ["soon"]  # once per unit of work, however many writes
    with pytest.raises(RuntimeError, match="the request failed"):
        await add_then_fail(db, configured, analyzer, clock, embeddings)
    assert asked == ["soon"]  # rolled back: nothing to embed, nothing told
    async with db.unit_of_work() as session:
        service = MemoryService(session, configured, analyzer, clock, embeddings)
        memory = (await service.add("u", NewMemory(content="Edited soon"))).memory
    async with db.unit_of_work() as session:
        service = MemoryService(session, configured, analyzer, clock, embeddings)
        await service.update("u", memory.id, MemoryChanges(content="Edited now"))
        assert asked == ["soon", "soon"]
    assert asked == ["soon", "soon", "soon"]  # an edit's new text is embedded too


async def test_a_write_during_a_slow_batch_is_embedded_by_the_same_run_newest_first(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    configured = backfill_settings(settings, provider)
    embeddings, embedder, asked = gated(configured)
    old = await write(db, configured, analyzer, clock, embeddings, "u", *OLD)
    asked.clear()
    run = asyncio.create_task(run_embedding_backfill(db, configured, clock, embeddings))
    await embedder.entered.wait()  # the first batch is at the provider, which holds it
    assert embedder.sent == [[OLD[-1]]]  # the newest first
    (new,) = await write(db, configured, analyzer, clock, embeddings, "u", NEW)
    assert asked == []  # the run under way takes it: no second run is asked for
    embedder.gate.set()
    done = await run
    assert (done.status, done.rows) == ("succeeded", 4)
    # The write made during the first batch went next, before the older memories.
    assert embedder.sent == [[OLD[2]], [NEW], [OLD[1]], [OLD[0]]]
    assert await embedded(db, embeddings, "u") == {*old, new}
    assert asked == []


async def test_a_write_the_run_has_not_read_asks_for_the_next_run(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    """A failing batch ends the run; a write made during it is not left to the interval."""
    configured = backfill_settings(settings, provider)
    embeddings, embedder, asked = gated(configured)
    await write(db, configured, analyzer, clock, embeddings, "u", *OLD)
    asked.clear()
    provider.mode = "error"
    run = asyncio.create_task(run_embedding_backfill(db, configured, clock, embeddings))
    await embedder.entered.wait()
    (new,) = await write(db, configured, analyzer, clock, embeddings, "u", NEW)
    embedder.gate.set()
    assert (await run).status == "failed"
    assert asked == ["soon"]  # the next run is asked for at once
    provider.mode = "ok"
    done = await run_embedding_backfill(db, configured, clock, embeddings)
    assert (done.status, done.rows) == ("succeeded", 4)
    assert new in await embedded(db, embeddings, "u")


def test_the_scheduler_is_asked_for_a_run_only_when_none_is_under_way(
    db: Database, settings: Settings, provider: ProviderServer
) -> None:
    configured = backfill_settings(settings, provider).model_copy(
        update={"embedding_backfill_delay": 2.0}
    )
    embeddings = Embeddings(
        OpenAIEmbedder(provider.base_url, "toy", timeout=ANSWER_TIMEOUT), configured
    )
    scheduler = build_scheduler(db, configured, FakeClock(datetime.now(UTC)), embeddings)
    job = scheduler.get_job(EMBED_JOB)
    assert job is not None
    later = datetime.now(UTC) + timedelta(hours=1)
    job.modify(next_run_time=later)
    with embeddings.backfill.run():
        embeddings.on_unembedded()
        # APScheduler would drop a run due while this one is under way (max_instances=1):
        # the job is left alone and the run under way reads the write.
        assert scheduler.get_job(EMBED_JOB).next_run_time == later
    # This run ended without reading it (it never took the mark): the next comes soon.
    soon = scheduler.get_job(EMBED_JOB).next_run_time
    assert soon <= datetime.now(UTC) + timedelta(seconds=2)


@pytest.fixture(params=BACKENDS)
async def shared_url(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[str]:
    """A database of its own that two "processes" open (real commits, dropped after)."""
    async with migrated_copy(request.param, tmp_path) as url:
        yield url


async def test_one_backfill_at_a_time_across_processes(
    shared_url: str,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    """Two processes on one database: each has its Database, Embeddings and nudges."""
    configured = backfill_settings(settings, provider)
    first_db, second_db = Database(build_engine(shared_url)), Database(build_engine(shared_url))
    first, first_embedder, _ = gated(configured)
    second, second_embedder, second_asked = gated(configured)
    second_embedder.gate.set()
    try:
        old = await write(first_db, configured, analyzer, clock, first, "u", *OLD)
        running = asyncio.create_task(run_embedding_backfill(first_db, configured, clock, first))
        await first_embedder.entered.wait()  # the first process's run holds its first batch
        # The second process takes a write; its own nudge asks its scheduler for a run.
        (new,) = await write(second_db, configured, analyzer, clock, second, "u", NEW)
        assert second_asked == ["soon"]
        skipped = await run_embedding_backfill(second_db, configured, clock, second)
        assert (skipped.status, skipped.rows) == ("skipped", 0)
        assert second_embedder.sent == []  # it embedded nothing beside the other run
        assert second_asked == ["soon", "soon"]  # and tries again soon: its write waits
        first_embedder.gate.set()
        done = await running
        assert (done.status, done.rows) == ("succeeded", 3)  # it never heard of the write
        again = await run_embedding_backfill(second_db, configured, clock, second)
        assert (again.status, again.rows) == ("succeeded", 1)
        assert second_embedder.sent == [[NEW]]
        assert second_asked == ["soon", "soon"]
        assert await embedded(first_db, first, "u") == {*old, new}
        # Every text went to a provider once: no two runs embedded the same rows.
        assert sorted(t for batch in first_embedder.sent + second_embedder.sent for t in batch) == (
            sorted([*OLD, NEW])
        )
        async with first_db.unit_of_work() as session:
            runs = (await session.execute(select(JobRun.status).order_by(JobRun.id))).scalars()
            # The skipped run a write waited on is not recorded: its retries would be
            # a row every few seconds for as long as the other run lasts.
            assert list(runs) == ["succeeded", "succeeded"]
    finally:
        await first_db.dispose()
        await second_db.dispose()


async def vector_sources(db: Database, embeddings: Embeddings, user: str) -> dict[int, str | None]:
    async with db.unit_of_work() as session:
        rows = await session.execute(
            select(MemoryEmbedding.memory_id, MemoryEmbedding.source_hash).where(
                MemoryEmbedding.user_id == user, MemoryEmbedding.model == embeddings.model
            )
        )
        return {int(i): h for i, h in rows}


async def test_an_edit_during_a_run_is_embedded_again_never_the_old_text(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    configured = backfill_settings(settings, provider)
    embeddings, embedder, _ = gated(configured)
    old = await write(db, configured, analyzer, clock, embeddings, "u", *OLD)
    run = asyncio.create_task(run_embedding_backfill(db, configured, clock, embeddings))
    await embedder.entered.wait()  # the newest memory's old text is at the provider
    edited = "My sister Ann moved to Porto"
    async with db.unit_of_work() as session:
        service = MemoryService(session, configured, analyzer, clock, embeddings)
        await service.update("u", old[-1], MemoryChanges(content=edited))
    embedder.gate.set()
    done = await run
    # The old text's vector was refused; the edit's nudge sent the run back for it.
    assert embedder.sent == [[OLD[2]], [edited], [OLD[1]], [OLD[0]]]
    assert (done.status, done.rows) == ("succeeded", 3)
    sources = await vector_sources(db, embeddings, "u")
    assert sources == {
        old[0]: source_hash(OLD[0]),
        old[1]: source_hash(OLD[1]),
        old[2]: source_hash(edited),
    }
    (wanted,) = await embeddings.embed([edited])
    async with db.unit_of_work() as session:
        stored = dict(await EmbeddingRepository(session).vectors("u", embeddings.model))
    assert from_bytes(stored[old[2]]) == pytest.approx(wanted, abs=1e-6)
    check = await verify_vectors(db, configured, embeddings)
    assert (check.checked, check.matching, check.stale, check.unknown) == (3, 3, [], 0)


async def test_a_delete_during_a_run_leaves_no_vector(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    configured = backfill_settings(settings, provider)
    embeddings, embedder, _ = gated(configured)
    old = await write(db, configured, analyzer, clock, embeddings, "u", *OLD)
    run = asyncio.create_task(run_embedding_backfill(db, configured, clock, embeddings))
    await embedder.entered.wait()
    async with db.unit_of_work() as session:
        service = MemoryService(session, configured, analyzer, clock, embeddings)
        await service.delete("u", old[-1])
    embedder.gate.set()
    done = await run
    assert (done.status, done.rows) == ("succeeded", 2)
    assert set(await vector_sources(db, embeddings, "u")) == {old[0], old[1]}


async def test_an_at_write_vector_of_an_edit_is_not_overwritten_by_the_backfill(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    """With EMBEDDING_AT_WRITE the edit stores its own vector; the run's older one loses."""
    configured = backfill_settings(settings, provider)
    embeddings, embedder, _ = gated(configured)
    (memory,) = await write(db, configured, analyzer, clock, embeddings, "u", OLD[0])
    at_write = configured.model_copy(update={"embedding_at_write": True})
    writer = Embeddings(OpenAIEmbedder(provider.base_url, "toy", timeout=10), at_write)
    run = asyncio.create_task(run_embedding_backfill(db, configured, clock, embeddings))
    await embedder.entered.wait()
    async with db.unit_of_work() as session:
        service = MemoryService(session, at_write, analyzer, clock, writer)
        await service.update("u", memory, MemoryChanges(content=NEW))
    embedder.gate.set()
    assert (await run).rows == 0
    assert await vector_sources(db, embeddings, "u") == {memory: source_hash(NEW)}


@pytest.mark.parametrize("context_turns", [0, 2])
async def test_an_edited_turn_takes_the_vectors_made_with_its_text(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
    context_turns: int,
) -> None:
    configured = backfill_settings(settings, provider).model_copy(
        update={"embedding_context_turns": context_turns}
    )
    embeddings, embedder, _ = gated(configured)
    embedder.gate.set()
    turns = ["I adopted a puppy", "She is called Lua", "She loves the beach"]
    async with db.unit_of_work() as session:
        service = MemoryService(session, configured, analyzer, clock, embeddings)
        stored = await service.add_many(
            "u",
            [
                NewMemory(
                    content=t, conversation_id="c1", created_at=clock.now + timedelta(minutes=n)
                )
                for n, t in enumerate(turns)
            ],
        )
    ids = [s.memory.id for s in stored]
    await run_embedding_backfill(db, configured, clock, embeddings)
    check = await verify_vectors(db, configured, embeddings)
    assert (check.checked, check.matching, check.stale) == (3, 3, [])
    # The first turn is edited: its own vector goes, and so do the vectors of the turns
    # embedded after it with its text (forgetting leaves no trace of the old text); with
    # turns embedded alone (the default, 0) no other vector held its text, so the other
    # two stay. The backfill makes the missing ones again from the current text.
    async with db.unit_of_work() as session:
        service = MemoryService(session, configured, analyzer, clock, embeddings)
        await service.update("u", ids[0], MemoryChanges(content="I adopted a kitten"))
    check = await verify_vectors(db, configured, embeddings)
    kept = 0 if context_turns else 2
    assert (check.checked, check.matching, check.stale) == (kept, kept, [])
    await run_embedding_backfill(db, configured, clock, embeddings)
    check = await verify_vectors(db, configured, embeddings)
    assert (check.checked, check.matching, check.stale) == (3, 3, [])
    check = await verify_vectors(db, configured, embeddings, user_id="someone-else")
    assert check.checked == 0


@pytest.mark.postgres_only
async def test_on_postgresql_an_edit_and_the_backfills_store_wait_for_each_other(
    shared_url: str,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    """Separate connections: whichever of the two locks the memory first, the other waits,
    and no vector of the old text outlives the edit."""
    if not shared_url.startswith("postgresql"):
        pytest.skip("needs separate PostgreSQL connections")
    configured = backfill_settings(settings, provider)
    db = Database(build_engine(shared_url))
    embeddings, embedder, _ = gated(configured)
    embedder.gate.set()
    try:
        first, second = await write(db, configured, analyzer, clock, embeddings, "u", *OLD[:2])
        vectors = await embeddings.embed(OLD[:2])

        async def store(memory_id: int, n: int) -> int:
            async with db.unit_of_work() as session:
                made = [(memory_id, vectors[n], OLD[n])]
                contents = {memory_id: OLD[n]}
                return await embeddings.store(session, "u", made, clock.now, contents=contents)

        # The edit locks first: the store waits for its commit, then sees the new text.
        async with db.unit_of_work() as session:
            service = MemoryService(session, configured, analyzer, clock, embeddings)
            await service.update("u", first, MemoryChanges(content="Edited first"))
            storing = asyncio.create_task(store(first, 0))
            await blocked_by(db.engine, await backend_pid(await session.connection()), storing)
        assert await storing == 0

        # The store locks first: the edit waits for it, then drops the vector it stored.
        async def edit() -> None:
            async with db.unit_of_work() as session:
                service = MemoryService(session, configured, analyzer, clock, embeddings)
                await service.update("u", second, MemoryChanges(content="Edited second"))

        async with db.unit_of_work() as session:
            made = [(second, vectors[1], OLD[1])]
            stored = await embeddings.store(
                session, "u", made, clock.now, contents={second: OLD[1]}
            )
            assert stored == 1
            editing = asyncio.create_task(edit())
            await blocked_by(db.engine, await backend_pid(await session.connection()), editing)
        await editing
        assert await vector_sources(db, embeddings, "u") == {}
    finally:
        await db.dispose()
