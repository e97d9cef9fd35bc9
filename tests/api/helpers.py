"""Typed helpers shared by the REST API tests: calls, error checks and full listings."""

from __future__ import annotations

import json
from typing import Any

import httpx
from starlette.types import ASGIApp, Message

Json = dict[str, Any]

WEIGHTS = {"frequency": 0.35, "recency": 0.20, "emotion": 0.25, "impact": 0.20}
CLOCK_START = "2026-01-01T09:00:00Z"
MISSING_ID = 9_000_000_001  # no test creates this many memories


def memories_url(user: str) -> str:
    """The collection URL of a user's memories."""
    return f"/v1/users/{user}/memories"


def body(resp: httpx.Response, status: int) -> Any:
    """The JSON body of a response that must have ``status``."""
    assert resp.status_code == status, f"{resp.status_code} {resp.text}"
    return resp.json()


async def remember(
    client: httpx.AsyncClient, user: str, content: str, *, status: int = 201, **fields: Any
) -> Json:
    """POST one memory and return the stored memory."""
    resp = await client.post(memories_url(user), json={"content": content, **fields})
    stored: Json = body(resp, status)
    return stored


async def fetch(client: httpx.AsyncClient, user: str, memory_id: int) -> Json:
    """GET one memory (it must exist)."""
    found: Json = body(await client.get(f"{memories_url(user)}/{memory_id}"), 200)
    return found


async def recall(client: httpx.AsyncClient, user: str, query: str, **fields: Any) -> list[Json]:
    """POST a recall and return its results."""
    resp = await client.post(f"/v1/users/{user}/recall", json={"query": query, **fields})
    results: list[Json] = body(resp, 200)["results"]
    return results


def assert_error(resp: httpx.Response, status: int, code: str) -> Json:
    """The response is an error of the service's one shape with this status and code."""
    assert resp.status_code == status, f"{resp.status_code} {resp.text}"
    payload = resp.json()
    assert list(payload) == ["error"], payload
    error: Json = payload["error"]
    assert error["code"] == code, error
    assert isinstance(error["message"], str)
    assert error["message"]
    assert set(error) <= {"code", "message", "details"}
    return error


async def list_page(client: httpx.AsyncClient, user: str, **params: Any) -> Json:
    """One page of a user's memories."""
    page: Json = body(await client.get(memories_url(user), params=params), 200)
    return page


async def list_all(client: httpx.AsyncClient, user: str, **params: Any) -> list[Json]:
    """Every memory of a user, following ``next_cursor`` to the end."""
    items: list[Json] = []
    cursor: str | None = None
    for _ in range(1000):
        query = dict(params, **({"cursor": cursor} if cursor else {}))
        page = await list_page(client, user, **query)
        items.extend(page["items"])
        cursor = page["next_cursor"]
        if cursor is None:
            return items
    raise AssertionError("pagination never ended")


async def total_memories(client: httpx.AsyncClient) -> int:
    """How many memories exist across every user (admin stats, auth off)."""
    stats: Json = body(await client.get("/admin/stats"), 200)
    total: int = stats["memories"]
    return total


def weighted_sum(scores: Json) -> float:
    """The importance the four stored components give with the default weights."""
    return sum(float(scores[name]) * weight for name, weight in WEIGHTS.items())


async def asgi_call(
    app: ASGIApp,
    method: str,
    path: str,
    body: bytes = b"",
    *,
    server: tuple[str, int] = ("test", 80),
) -> tuple[int, dict[str, Any]]:
    """Call ``app`` with this exact path, as a server hands it over (uvicorn does not
    remove dot segments, as an HTTP client would), arriving on ``server``'s address."""
    sent: list[Message] = []
    chunks = [{"type": "http.request", "body": body, "more_body": False}]

    async def receive() -> Message:
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"content-type", b"application/json"), (b"host", b"test")],
        "client": ("127.0.0.1", 1),
        "server": server,
    }
    await app(scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    payload = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, json.loads(payload)
