"""Hostile but well-formed input: the answer is a clean 4xx, never a 500, on both databases.

These tests use a client that turns unhandled exceptions into the 500 a real server would
send, so a failure reads "got 500" rather than a driver traceback.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from api.app import create_app
from services.core.db import Database
from services.core.settings import Settings
from tests.api.helpers import Json, assert_error, body, memories_url, remember, total_memories
from tests.conftest import FakeClock
from tests.timing import lifespan

URL = memories_url("alice")
JSON_HEADERS = {"content-type": "application/json"}
TOO_BIG_ID = 2**63  # one past the largest 64-bit id


@pytest.fixture
async def server(
    db: Database, settings: Settings, clock: FakeClock
) -> AsyncIterator[httpx.AsyncClient]:
    """Like ``client``, but an unhandled error is a 500 response, as in production."""
    app = create_app(settings, db=db, clock=clock)
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=transport, base_url="http://test") as http,
    ):
        yield http


def ok_or_invalid(resp: httpx.Response, ok: int) -> Json | None:
    """Either the success status (body returned) or 422 invalid_input (None); never a 500."""
    if resp.status_code == ok:
        payload: Json = resp.json()
        return payload
    assert_error(resp, 422, "invalid_input")
    return None


def forge(payload: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("order", "cursor"),
    [
        # A timestamp without a zone: the server never makes one, and the DB layer refuses it.
        ("recent", forge({"o": "recent", "k": "2026-01-01T00:00:00", "i": 3})),
        # A non-finite score: NaN compares differently on SQLite and PostgreSQL.
        ("importance", forge({"o": "importance", "k": "nan", "i": 3})),
    ],
    ids=["naive-timestamp", "nan-score"],
)
async def test_forged_cursor_values_are_422(
    server: httpx.AsyncClient, order: str, cursor: str
) -> None:
    await remember(server, "alice", "I drink green tea every morning")
    resp = await server.get(URL, params={"order": order, "cursor": cursor})
    assert_error(resp, 422, "invalid_input")


@pytest.mark.parametrize(
    "fields",
    [
        {"content": "hello\u0000world"},
        {"content": "ok", "source": "chat\u0000"},
        {"content": "ok", "emotion_tags": ["calm\u0000"]},
        {"content": "ok", "metadata": {"k": "x\u0000y"}},
    ],
    ids=["content", "source", "tag", "metadata"],
)
async def test_nul_characters_are_stored_or_refused(
    server: httpx.AsyncClient, fields: dict[str, Any]
) -> None:
    created = ok_or_invalid(await server.post(URL, json=fields), 201)
    if created is None:
        assert await total_memories(server) == 0
        return
    for name, value in fields.items():
        stored = created["emotion_tags"] if name == "emotion_tags" else created[name]
        assert stored == value


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400"])
async def test_non_finite_numbers_in_metadata_are_422(
    server: httpx.AsyncClient, number: str
) -> None:
    raw = '{"content": "ok", "metadata": {"n": ' + number + "}}"
    resp = await server.post(URL, content=raw.encode(), headers=JSON_HEADERS)
    # Not JSON: it can neither be stored as JSONB nor returned unchanged.
    assert_error(resp, 422, "invalid_input")
    assert await total_memories(server) == 0


@pytest.mark.parametrize("when", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"])
async def test_created_at_outside_the_datetime_range_is_422(
    server: httpx.AsyncClient, when: str
) -> None:
    resp = await server.post(URL, json={"content": "ok", "created_at": when})
    assert_error(resp, 422, "invalid_input")
    assert await total_memories(server) == 0


async def test_created_at_in_year_one(server: httpx.AsyncClient) -> None:
    resp = await server.post(URL, json={"content": "ok", "created_at": "0001-01-01T00:00:00Z"})
    created = ok_or_invalid(resp, 201)
    if created is not None:
        assert created["created_at"] == "0001-01-01T00:00:00Z"
        assert created["scores"]["recency"] == pytest.approx(0.0, abs=1e-9)


async def test_ids_beyond_64_bits(server: httpx.AsyncClient) -> None:
    m = await remember(server, "alice", "I drink green tea every morning")
    for resp in (
        await server.get(f"{URL}/{TOO_BIG_ID}"),
        await server.patch(f"{URL}/{TOO_BIG_ID}", json={"content": "x"}),
        await server.delete(f"{URL}/{TOO_BIG_ID}"),
        await server.get(f"{URL}/{TOO_BIG_ID}/links"),
        await server.post(f"{URL}/{m['id']}/links", json={"target_id": TOO_BIG_ID}),
        await server.post(f"/v1/users/alice/escalations/{TOO_BIG_ID}/ack"),
        await server.get(f"/admin/memories/{TOO_BIG_ID}"),
    ):
        where = f"{resp.request.method} {resp.request.url}"
        assert resp.status_code in (404, 422), f"{where}: {resp.status_code} {resp.text}"
        assert_error(
            resp, resp.status_code, {404: "memory_not_found"}.get(resp.status_code, "invalid_input")
        )
    assert body(await server.get(f"{URL}/{m['id']}"), 200)["associated_count"] == 0


def nested(depth: int) -> bytes:
    return b'{"content": "ok", "metadata": {"a": ' + b"[" * depth + b"]" * depth + b"}}"


async def test_deeply_nested_metadata_is_stored_or_refused(server: httpx.AsyncClient) -> None:
    # 256 levels is well under 4 KB, so the size check passes.
    resp = await server.post(URL, content=nested(256), headers=JSON_HEADERS)
    created = ok_or_invalid(resp, 201)
    if created is None:
        assert await total_memories(server) == 0
    else:
        assert json.dumps(created["metadata"], separators=(",", ":")).count("[") == 256


async def test_body_too_deep_to_parse_is_422(server: httpx.AsyncClient) -> None:
    resp = await server.post(URL, content=nested(5000), headers=JSON_HEADERS)
    assert_error(resp, 422, "invalid_input")
    assert await total_memories(server) == 0


async def test_admin_users_cursor_with_nul(server: httpx.AsyncClient) -> None:
    await remember(server, "alice", "I drink green tea every morning")
    resp = await server.get("/admin/users", params={"cursor": "a\u0000b"})
    page = ok_or_invalid(resp, 200)
    if page is not None:
        assert [u["user_id"] for u in page["items"]] == ["alice"]
