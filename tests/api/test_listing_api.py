"""Listing a user's memories: order, keyset pagination, filters and cursors."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any

import httpx
import pytest

from tests.api.helpers import Json, assert_error, body, list_all, list_page, memories_url

URL = memories_url("alice")

# Varied importance (repeats, emotion words) with several exact ties, and created_at values
# with ties across time zones (10:00+02:00 == 08:00Z) and a microsecond apart.
ITEMS: list[dict[str, Any]] = [
    {"content": "Buy oat milk", "memory_type": "todo", "created_at": "2025-12-01T08:00:00Z"},
    {
        "content": "Call the plumber",
        "memory_type": "todo",
        "created_at": "2025-12-01T10:00:00+02:00",
    },
    {"content": "My dentist is Dr. Rossi", "memory_type": "fact"},
    {"content": "这个很急，很重要", "memory_type": "goal", "created_at": "2025-12-20T00:00:00Z"},
    {"content": "I prefer window seats", "memory_type": "preference"},
    {"content": "Call the plumber!", "memory_type": "todo"},
    {"content": "Renew the passport", "memory_type": "todo", "created_at": "2025-12-01T08:00:00Z"},
    {"content": "Sister's birthday is in June", "memory_type": "fact"},
    {"content": "我很担心明天的考试", "memory_type": "event"},
    {
        "content": "Learn to sail",
        "memory_type": "goal",
        "created_at": "2025-12-01T08:00:00.000001Z",
    },
    {"content": "这个很急，很重要。", "memory_type": "goal"},
    {"content": "这个很急，很重要！", "memory_type": "goal"},
]


async def seed(client: httpx.AsyncClient) -> list[Json]:
    out = body(await client.post(f"{URL}/batch", json={"items": ITEMS}), 200)
    assert (out["created"], out["merged"]) == (9, 3)
    stored: list[Json] = body(await client.get(URL, params={"limit": 100}), 200)["items"]
    assert len(stored) == 9
    return stored


def when(memory: Json) -> datetime:
    return datetime.fromisoformat(memory["created_at"])


@pytest.mark.parametrize("limit", [1, 4])
async def test_importance_pages_visit_every_memory_once(
    client: httpx.AsyncClient, limit: int
) -> None:
    stored = await seed(client)
    scores = [m["importance_score"] for m in stored]
    assert len(set(scores)) < len(scores), "the data must contain ties to test the keyset"
    expected = sorted(stored, key=lambda m: (m["importance_score"], m["id"]), reverse=True)
    assert [m["id"] for m in stored] == [m["id"] for m in expected]
    first = await list_page(client, "alice", limit=limit)
    assert len(first["items"]) == limit
    assert first["next_cursor"] is not None
    paged = await list_all(client, "alice", limit=limit)
    assert [m["id"] for m in paged] == [m["id"] for m in expected]
    assert paged[0]["content"] == "这个很急，很重要"


@pytest.mark.parametrize("limit", [1, 3])
async def test_recent_pages_visit_every_memory_once(client: httpx.AsyncClient, limit: int) -> None:
    stored = await seed(client)
    expected = sorted(stored, key=lambda m: (when(m), m["id"]), reverse=True)
    times = [when(m) for m in stored]
    assert len(set(times)) < len(times)
    paged = await list_all(client, "alice", order="recent", limit=limit)
    assert [m["id"] for m in paged] == [m["id"] for m in expected]
    assert [when(m) for m in paged] == sorted(times, reverse=True)


async def test_last_page_has_no_cursor(client: httpx.AsyncClient) -> None:
    await seed(client)
    page = await list_page(client, "alice", limit=9)
    assert len(page["items"]) == 9
    assert page["next_cursor"] is None
    assert await list_page(client, "nobody") == {"items": [], "next_cursor": None}


async def test_type_filter(client: httpx.AsyncClient) -> None:
    stored = await seed(client)
    todos = await list_all(client, "alice", type="todo", limit=2)
    assert {m["content"] for m in todos} == {
        "Buy oat milk",
        "Call the plumber",
        "Renew the passport",
    }
    both = await list_all(client, "alice", type=["fact", "event"])
    assert {m["memory_type"] for m in both} == {"fact", "event"}
    assert len(both) == sum(1 for m in stored if m["memory_type"] in ("fact", "event")) == 3
    assert await list_all(client, "alice", type="decision") == []


async def test_level_filter(client: httpx.AsyncClient) -> None:
    stored = await seed(client)
    by_level: dict[str, set[int]] = {}
    for m in stored:
        by_level.setdefault(m["importance_level"], set()).add(m["id"])
    assert len(by_level) >= 2
    for level in ("high", "medium", "low"):
        found = await list_all(client, "alice", level=level, limit=1)
        assert {m["id"] for m in found} == by_level.get(level, set())
        assert all(m["scores"]["level"] == level for m in found)
    high = await list_all(client, "alice", level="high")
    assert [m["content"] for m in high] == ["这个很急，很重要"]


def forge(payload: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(payload).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("order", "cursor"),
    [
        ("importance", "not-a-cursor"),
        ("importance", "%%%"),
        ("importance", forge([1, 2])),
        ("importance", forge({"o": "importance", "k": "high", "i": 3})),
        ("importance", forge({"o": "importance", "k": 0.5})),
        ("importance", forge({"o": "recent", "k": "2026-01-01T00:00:00+00:00", "i": 3})),
        ("recent", forge({"o": "importance", "k": 0.5, "i": 3})),
        ("recent", forge({"o": "recent", "k": "yesterday", "i": 3})),
    ],
)
async def test_malformed_cursor_is_422(client: httpx.AsyncClient, order: str, cursor: str) -> None:
    resp = await client.get(URL, params={"order": order, "cursor": cursor})
    assert_error(resp, 422, "invalid_input")


@pytest.mark.parametrize(
    "params",
    [
        {"order": "oldest"},
        {"limit": 0},
        {"limit": 101},
        {"type": "secret"},
        {"level": "urgent"},
        {"cursor": "x" * 513},
    ],
)
async def test_bad_list_parameters_are_422(client: httpx.AsyncClient, params: Json) -> None:
    assert_error(await client.get(URL, params=params), 422, "invalid_input")
