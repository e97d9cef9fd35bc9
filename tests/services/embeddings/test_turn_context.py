"""With EMBEDDING_CONTEXT_TURNS > 0, a turn of a conversation is embedded with the turns
said just before it; a statement, a turn of another conversation and a turn said long
after are not its context. By default (0) every turn is embedded alone. Against the real
loopback provider, on both databases."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from models import UserMemory
from services.core.settings import Settings
from services.embeddings.jobs import run_embedding_backfill
from services.embeddings.service import Embeddings, build_embeddings
from services.embeddings.turn_context import embedded_text, model_name
from services.remembering.memory_service import MemoryChanges, MemoryService, NewMemory
from tests.factories import Services
from tests.providers import ProviderServer
from tests.services.embeddings.test_embeddings import embedding_settings, models_of


def test_a_turn_follows_the_turns_before_it_a_line_each() -> None:
    assert embedded_text("Lisbon.", ["Where does Ann live?", "My sister?"]) == (
        "Where does Ann live?\nMy sister?\nLisbon."
    )
    assert embedded_text("I like tea", []) == "I like tea"
    assert model_name("openai:toy", 2) == "openai:toy+turns2"
    assert model_name("openai:toy", 0) == "openai:toy"


def inputs(provider: ProviderServer) -> list[str]:
    """Every text the provider was asked to embed, in order."""
    found: list[str] = []
    for path, body in provider.requests:
        if path.endswith("/embeddings"):
            texts: Any = body["input"]
            found += [texts] if isinstance(texts, str) else list(texts)
    return found


async def remember(
    services: Services, embeddings: Embeddings, items: list[NewMemory]
) -> list[UserMemory]:
    """Write ``items`` for user ``u`` in one batch, as a chat frontend's import would."""
    async with services.db.unit_of_work() as session:
        service = MemoryService(
            session, services.settings, services.analyzer, services.clock, embeddings
        )
        return [s.memory for s in await service.add_many("u", items)]


def built(services: Services, provider: ProviderServer, **extra: object) -> Embeddings:
    embeddings = build_embeddings(embedding_settings(services.settings, provider, **extra))
    assert embeddings is not None
    return embeddings


async def test_the_backfill_embeds_a_turn_after_the_two_turns_said_before_it(
    services: Services, provider: ProviderServer
) -> None:
    # Off by default: asked for here, as a person who wants turns read in context would.
    embeddings = built(services, provider, embedding_context_turns=2)
    at = services.clock()
    said = [
        ("c1", "Where does your sister live now?", at),
        ("c2", "The printer is out of toner", at + timedelta(minutes=1)),
        ("c1", "Ann? She moved last spring.", at + timedelta(minutes=2)),
        ("c1", "Where to?", at + timedelta(minutes=3)),
        ("c1", "Lisbon, near the river.", at + timedelta(minutes=4)),
        (None, "I drink green tea", at + timedelta(minutes=5)),
        ("c1", "Anyway, see you Friday", at + timedelta(hours=3)),
    ]
    items = [NewMemory(content=t, conversation_id=c, created_at=w) for c, t, w in said]
    await remember(services, embeddings, items)
    # At write only the statement: a turn's context is read by the backfill job.
    assert inputs(provider) == ["I drink green tea"]
    provider.requests.clear()
    run = await run_embedding_backfill(
        services.db, services.settings, services.clock, embeddings, user_id="u"
    )
    assert run.status == "succeeded"
    assert run.rows == 6
    assert sorted(inputs(provider)) == sorted(
        [
            "Where does your sister live now?",
            "The printer is out of toner",  # nothing before it in its own conversation
            "Where does your sister live now?\nAnn? She moved last spring.",
            "Where does your sister live now?\nAnn? She moved last spring.\nWhere to?",
            "Ann? She moved last spring.\nWhere to?\nLisbon, near the river.",
            "Anyway, see you Friday",  # hours later: outside the continuity window
        ]
    )
    assert await models_of(services, "u") == {"openai:toy+turns2": 7}


async def test_by_default_every_turn_is_embedded_alone_under_the_plain_name(
    services: Services, provider: ProviderServer
) -> None:
    # The default settings (EMBEDDING_CONTEXT_TURNS 0): a turn's vector is its own text's,
    # made at write like a statement's, and the model name carries no "+turns".
    assert Settings.model_fields["embedding_context_turns"].default == 0
    assert services.settings.embedding_context_turns == 0
    embeddings = built(services, provider)
    at = services.clock()
    items = [
        NewMemory(content=t, conversation_id="c1", created_at=at + timedelta(minutes=n))
        for n, t in enumerate(["Where does Ann live?", "Lisbon."])
    ]
    await remember(services, embeddings, items)
    assert inputs(provider) == ["Where does Ann live?", "Lisbon."]
    assert await models_of(services, "u") == {"openai:toy": 2}


async def test_an_edited_turn_is_left_to_the_backfill_which_embeds_it_in_context(
    services: Services, provider: ProviderServer
) -> None:
    embeddings = built(services, provider, embedding_context_turns=2)
    at = services.clock()
    items = [
        NewMemory(content=t, conversation_id="c1", created_at=at + timedelta(minutes=n))
        for n, t in enumerate(["Where does Ann live?", "Porto."])
    ]
    first, second = await remember(services, embeddings, items)
    await run_embedding_backfill(services.db, services.settings, services.clock, embeddings)
    provider.requests.clear()
    async with services.db.unit_of_work() as session:
        service = MemoryService(
            session, services.settings, services.analyzer, services.clock, embeddings
        )
        await service.update("u", second.id, MemoryChanges(content="Lisbon."))
    assert await models_of(services, "u") == {"openai:toy+turns2": 1}  # the old vector went
    provider.requests.clear()
    run = await run_embedding_backfill(
        services.db, services.settings, services.clock, embeddings, user_id="u"
    )
    assert run.rows == 1
    assert inputs(provider) == ["Where does Ann live?\nLisbon."]
    assert first.id != second.id
