"""A person's time zone over REST: set and read it, and recall counts their days in it
(also passed per request); it travels with an export and goes with an erasure."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx

from tests.api.helpers import assert_error, body, remember
from tests.conftest import FakeClock

USER = "zoned"


async def person(client: httpx.AsyncClient, user: str = USER) -> dict[str, object]:
    found: dict[str, object] = body(await client.get(f"/v1/users/{user}"), 200)
    return found


async def set_zone(client: httpx.AsyncClient, zone: str | None, user: str = USER) -> object:
    return body(await client.patch(f"/v1/users/{user}", json={"time_zone": zone}), 200)


async def test_a_time_zone_is_set_checked_and_reset(client: httpx.AsyncClient) -> None:
    assert await person(client) == {"user_id": USER, "time_zone": None}
    assert await set_zone(client, "Asia/Shanghai") == {
        "user_id": USER,
        "time_zone": "Asia/Shanghai",
    }
    assert (await person(client))["time_zone"] == "Asia/Shanghai"
    unchanged = body(await client.patch(f"/v1/users/{USER}", json={}), 200)
    assert unchanged["time_zone"] == "Asia/Shanghai"
    for bad in ("Mars/Olympus_Mons", "../../etc/passwd"):
        resp = await client.patch(f"/v1/users/{USER}", json={"time_zone": bad})
        assert_error(resp, 422, "invalid_input")
    assert (await person(client))["time_zone"] == "Asia/Shanghai"
    assert await set_zone(client, None) == {"user_id": USER, "time_zone": None}


async def yesterday(client: httpx.AsyncClient, **fields: object) -> tuple[str, list[str]]:
    """The span "yesterday" meant, and what it recalled first."""
    payload = {"query": "what did I do yesterday", "explain": True, "track": False, **fields}
    hits = body(await client.post(f"/v1/users/{USER}/recall", json=payload), 200)["results"]
    assert hits
    return hits[0]["explanation"]["time_expression"]["start"], [
        h["memory"]["content"] for h in hits
    ]


async def test_yesterday_is_the_person_s_yesterday(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    clock.now = datetime(2026, 3, 9, 10, 0, tzinfo=UTC)  # 18:00 on the 9th in Shanghai
    await remember(client, USER, "I did the laundry in the evening")
    clock.now = datetime(2026, 3, 9, 17, 0, tzinfo=UTC)  # 01:00 on the 10th in Shanghai
    await remember(client, USER, "I did a night walk by the river")
    clock.now = datetime(2026, 3, 10, 23, 30, tzinfo=UTC)  # 07:30 on the 11th in Shanghai
    start, _ = await yesterday(client)
    assert start == "2026-03-09T00:00:00Z"  # no zone set: UTC's 9th
    await set_zone(client, "Asia/Shanghai")
    start, recalled = await yesterday(client)
    assert start == "2026-03-09T16:00:00Z"  # the 10th in Shanghai
    assert recalled[0] == "I did a night walk by the river"
    start, _ = await yesterday(client, time_zone="UTC")  # the request's zone wins
    assert start == "2026-03-09T00:00:00Z"
    bad = await client.post(
        f"/v1/users/{USER}/recall", json={"query": "yesterday", "time_zone": "Nowhere/Land"}
    )
    assert_error(bad, 422, "invalid_input")


async def test_the_time_zone_travels_with_an_export_and_goes_with_an_erasure(
    client: httpx.AsyncClient,
) -> None:
    await remember(client, USER, "I drink green tea every morning")
    await set_zone(client, "Europe/London")
    exported = (await client.get(f"/v1/users/{USER}/export")).content
    assert b'"time_zone":"Europe/London"' in exported
    body(await client.delete(f"/v1/users/{USER}"), 200)
    assert (await person(client))["time_zone"] is None
    body(await client.post(f"/v1/users/{USER}/import", content=exported), 201)
    assert (await person(client))["time_zone"] == "Europe/London"


async def test_a_context_dates_memories_by_the_person_s_calendar(
    client: httpx.AsyncClient, clock: FakeClock
) -> None:
    clock.now = datetime(2026, 3, 9, 17, 0, tzinfo=UTC)  # 01:00 on the 10th in Shanghai
    await remember(client, USER, "I did a night walk by the river")
    ask = {
        "messages": [{"role": "user", "content": "Where did I walk?"}],
        "budget_tokens": 2000,
    }

    async def memory_block() -> str:
        found = body(await client.post(f"/v1/users/{USER}/context", json=ask), 200)
        blocks = [m["content"] for m in found["messages"] if m.get("name") == "memory_context"]
        assert len(blocks) == 1, found["messages"]
        return str(blocks[0])

    assert "(2026-03-09) I did a night walk" in await memory_block()
    await set_zone(client, "Asia/Shanghai")
    assert "(2026-03-10) I did a night walk" in await memory_block()
