"""A person's export and import through the real app: export → erase → import gives back
the same memories (the same export, but for its header) and the same recall; a document
that is not a whole export is refused with nothing written."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from services.access.person_document import FORMAT_VERSION, MEDIA_TYPE
from tests.api.conftest import AppFactory
from tests.api.helpers import Json, assert_error, body, list_all, memories_url, remember
from tests.conftest import FakeClock
from tests.providers import ANSWER_TIMEOUT, ProviderServer

USER = "exported-user"
QUERIES = ("where do I live", "green tea", "dentist appointment", "我住在哪里", "")


async def build_a_life(client: httpx.AsyncClient, clock: FakeClock, user: str = USER) -> None:
    """A store with what an export must carry: conversations and both roles, metadata and
    tags, a corrected fact (supersession), topic and explicit links, recall counts, score
    history, message scores and a compression."""
    tea = await remember(
        client,
        user,
        "I drink green tea every morning",
        memory_type="preference",
        metadata={"from": "onboarding", "n": 1.5},
        emotion_tags=["很重要"],
    )
    await remember(client, user, "我住在北京")
    clock.advance(days=3)
    await remember(client, user, "我搬到上海了")
    dentist = await remember(
        client, user, "Dentist appointment next Tuesday at 9", memory_type="event"
    )
    await remember(client, user, "Remind me about the dentist", conversation_id="chat-1")
    await remember(client, user, "I will remind you.", conversation_id="chat-1", role="assistant")
    link = f"{memories_url(user)}/{tea['id']}/links"
    body(await client.post(link, json={"target_id": dentist["id"]}), 201)
    clock.advance(days=10)
    for query in ("green tea", "dentist"):
        body(await client.post(f"/v1/users/{user}/recall", json={"query": query}), 200)
    body(await client.post("/admin/jobs/rescore", json={"user_id": user}), 200)
    messages = [
        {"role": "user", "content": "Remind me about the dentist"},
        {"role": "assistant", "content": "I will remind you."},
        {"role": "user", "content": "When is it?"},
    ]
    scored = {"messages": messages, "conversation_id": "chat-1", "task_context": "dentist"}
    body(await client.post(f"/v1/users/{user}/messages/score", json=scored), 200)
    compress = {"messages": messages, "conversation_id": "chat-1", "target_count": 2}
    body(await client.post(f"/v1/users/{user}/messages/compress", json=compress), 200)


async def export(client: httpx.AsyncClient, user: str = USER) -> list[Json]:
    resp = await client.get(f"/v1/users/{user}/export")
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith(MEDIA_TYPE)
    assert resp.text.endswith("\n")
    return [json.loads(line) for line in resp.text.splitlines()]


def without_header(lines: list[Json]) -> list[Json]:
    assert lines[0]["kind"] == "header"
    assert lines[0]["version"] == FORMAT_VERSION
    return lines[1:]


async def import_(
    client: httpx.AsyncClient, user: str, data: bytes | str, status: int = 201
) -> Any:
    resp = await client.post(
        f"/v1/users/{user}/import", content=data, headers={"content-type": MEDIA_TYPE}
    )
    return body(resp, status)


def encoded(lines: list[Json]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


async def recalls(client: httpx.AsyncClient, user: str) -> list[list[tuple[str, float, float]]]:
    """What each of QUERIES recalls: texts, scores and importance (untracked)."""
    found = []
    for query in QUERIES:
        payload = {"query": query, "track": False, "top_k": 10}
        hits = body(await client.post(f"/v1/users/{user}/recall", json=payload), 200)["results"]
        found.append([(h["memory"]["content"], h["score"], h["importance"]) for h in hits])
    return found


async def test_export_erase_import_gives_back_the_same_person(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    await build_a_life(client, clock)
    before = await export(client)
    kinds = [line["kind"] for line in before]
    assert kinds[:2] == ["header", "person"]
    assert kinds[-1] == "end"
    assert {"memory", "link", "message_score", "compression"} <= set(kinds)
    memories = [line for line in before if line["kind"] == "memory"]
    assert [m["ref"] for m in memories] == list(range(1, len(memories) + 1))
    superseded = [m for m in memories if m["superseded_by"] is not None]
    assert [m["content"] for m in superseded] == ["我住在北京"]
    assert any(m["history"] for m in memories)
    assert {m["role"] for m in memories} == {"user", "assistant"}
    assert any(line["kind"] == "link" and line["link_kind"] == "explicit" for line in before)
    recalled = await recalls(client, USER)
    assert any(recalled)

    body(await client.delete(f"/v1/users/{USER}"), 200)
    assert await list_all(client, USER) == []
    imported = await import_(client, USER, encoded(before))
    assert imported["imported"]["memory"] == len(memories)

    after = await export(client)
    assert without_header(after) == without_header(before)
    assert await recalls(client, USER) == recalled
    # Byte for byte too, once imported from the bytes of an export and exported again.
    first = (await client.get(f"/v1/users/{USER}/export")).content
    await import_(client, "byte-copy", first)
    again = (await client.get("/v1/users/byte-copy/export")).content
    assert again.split(b"\n")[1:] == first.split(b"\n")[1:]


async def test_an_export_imports_into_another_person_and_leaves_the_first_alone(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    await build_a_life(client, clock)
    exported = await export(client)
    await import_(client, "the-copy", encoded(exported))
    assert without_header(await export(client, "the-copy")) == without_header(exported)
    assert without_header(await export(client)) == without_header(exported)
    assert await recalls(client, "the-copy") == await recalls(client, USER)


async def test_someone_unknown_exports_nothing(client: httpx.AsyncClient) -> None:
    lines = await export(client, "nobody-here")
    assert [line["kind"] for line in lines] == ["header", "end"]
    assert set(lines[-1]["counts"].values()) == {0}


def _spoiled(lines: list[Json]) -> dict[str, bytes]:
    """Exports spoiled in each way an import must refuse."""
    memory_at = next(i for i, line in enumerate(lines) if line["kind"] == "memory")
    bad_ref = [dict(line) for line in lines]
    link_at = next(i for i, line in enumerate(lines) if line["kind"] == "link")
    bad_ref[link_at] = {**lines[link_at], "b": 999}
    bad_score = [dict(line) for line in lines]
    bad_score[memory_at] = {**lines[memory_at], "importance_score": 1.5}
    unknown_field = [dict(line) for line in lines]
    unknown_field[memory_at] = {**lines[memory_at], "pinned": True}
    return {
        "cut short": encoded(lines[:-1]),
        "a line missing": encoded(lines[:memory_at] + lines[memory_at + 1 :]),
        "not json": encoded(lines[:2]) + b"{not json\n" + encoded(lines[2:]),
        "another version": encoded([{**lines[0], "version": FORMAT_VERSION + 1}, *lines[1:]]),
        "no header": encoded(lines[1:]),
        "empty": b"",
        "a link to nothing": encoded(bad_ref),
        "a score out of range": encoded(bad_score),
        "an unknown field": encoded(unknown_field),
    }


async def test_a_spoiled_export_is_refused_and_nothing_is_written(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    await build_a_life(client, clock)
    lines = await export(client)
    for name, data in _spoiled(lines).items():
        resp = await client.post(f"/v1/users/new-{len(name)}/import", content=data)
        error = assert_error(resp, 422, "invalid_export")
        assert await list_all(client, f"new-{len(name)}") == [], name
        assert error["message"], name
    found = assert_error(
        await client.post("/v1/users/x/import", content=_spoiled(lines)["a score out of range"]),
        422,
        "invalid_export",
    )
    assert "importance_score" in found["message"]
    assert found["details"]["line"] >= 2


async def test_an_import_into_a_person_with_memories_is_refused(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    await build_a_life(client, clock)
    data = encoded(await export(client))
    own = await remember(client, "someone", "I have a life of my own")
    assert_error(await client.post("/v1/users/someone/import", content=data), 409, "user_not_empty")
    assert [m["id"] for m in await list_all(client, "someone")] == [own["id"]]
    assert_error(await client.post(f"/v1/users/{USER}/import", content=data), 409, "user_not_empty")


async def test_a_prefix_key_exports_and_imports_only_its_own_users(
    app_with: AppFactory, db: Any, clock: FakeClock
) -> None:
    from services.access.keys import ApiKeyService
    from services.core.clock import utcnow

    async with db.unit_of_work() as session:
        created = await ApiKeyService(session, utcnow).create("tenant", "prefix:acme:")
    http = await app_with(jarvis_auth_required=True)
    http.headers["Authorization"] = f"Bearer {created.secret}"
    await remember(http, "acme:ann", "I drink green tea every morning")
    assert (await http.get("/v1/users/globex:bob/export")).status_code == 403
    data = encoded(await export(http, "acme:ann"))
    assert (await http.post("/v1/users/globex:bob/import", content=data)).status_code == 403
    await import_(http, "acme:ann-copy", data)


@pytest.mark.parametrize("memories", [1201])
async def test_a_long_export_is_streamed_in_pages_and_imports_whole(
    client: httpx.AsyncClient, memories: int
) -> None:
    items = [{"content": f"Note number {i} about the garden"} for i in range(memories)]
    for start in range(0, memories, 500):
        batch = {"items": items[start : start + 500]}
        body(await client.post(f"{memories_url('long')}/batch", json=batch), 200)
    lines = await export(client, "long")
    assert lines[-1]["counts"]["memory"] == memories
    await import_(client, "long-copy", encoded(lines))
    assert without_header(await export(client, "long-copy")) == without_header(lines)


async def test_vectors_travel_with_their_memories(
    app_with: AppFactory, clock: FakeClock, provider: ProviderServer
) -> None:
    http = await app_with(
        embedding_provider="openai",
        embedding_base_url=provider.base_url,
        embedding_model="toy",
        embedding_timeout=ANSWER_TIMEOUT,
        embedding_at_write=True,
    )
    await remember(http, USER, "Ann, my sister, resides in Lisbon")
    await remember(http, USER, "I walk the dog at seven")
    before = await export(http)
    vectors = [line["vector"] for line in before if line["kind"] == "memory"]
    assert all(v is not None and v["model"] == "openai:toy" for v in vectors), vectors
    recalled = await recalls(http, USER)
    body(await http.delete(f"/v1/users/{USER}"), 200)
    requests = len(provider.requests)
    await import_(http, USER, encoded(before))
    assert len(provider.requests) == requests  # imported, not embedded again
    assert without_header(await export(http)) == without_header(before)
    assert await recalls(http, USER) == recalled


async def test_an_import_over_the_size_bound_is_refused_unread(
    app_with: AppFactory, clock: FakeClock
) -> None:
    http = await app_with(import_max_bytes=2048)
    await build_a_life(http, clock)
    data = encoded(await export(http))
    assert len(data) > 2048
    error = assert_error(await http.post("/v1/users/big/import", content=data), 413, "too_large")
    assert "IMPORT_MAX_BYTES" in error["message"]

    async def chunks() -> AsyncIterator[bytes]:  # no Content-Length: counted as it comes
        for start in range(0, len(data), 1000):
            yield data[start : start + 1000]

    streamed = await http.post("/v1/users/big/import", content=chunks())
    assert_error(streamed, 413, "too_large")
    assert await list_all(http, "big") == []
