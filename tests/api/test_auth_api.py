"""Bearer keys: service keys for /v1, admin keys for everything; probes need none."""

from __future__ import annotations

from collections.abc import AsyncIterator

import httpx
import pytest

from api.app import create_app
from services.core.db import Database
from services.core.settings import Settings
from tests.api.helpers import assert_error, body, total_memories
from tests.conftest import FakeClock
from tests.timing import lifespan

SERVICE, ADMIN = "svc", "adm"


@pytest.fixture
async def keyed(db: Database, clock: FakeClock) -> AsyncIterator[httpx.AsyncClient]:
    """The real app with one service key and one admin key configured."""
    settings = Settings(
        _env_file=None,
        scheduler_enabled=False,
        freeze_startup_heap=False,
        jarvis_api_keys=[SERVICE],
        jarvis_admin_keys=[ADMIN],
    )
    app = create_app(settings, db=db, clock=clock)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as http,
    ):
        yield http


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


Call = tuple[str, str, object]

V1_CALLS: list[Call] = [
    ("GET", "/v1/users/alice/memories", None),
    ("POST", "/v1/users/alice/memories", {"content": "I drink green tea"}),
    ("POST", "/v1/users/alice/memories/batch", {"items": [{"content": "I drink green tea"}]}),
    ("GET", "/v1/users/alice/memories/1", None),
    ("PATCH", "/v1/users/alice/memories/1", {"content": "changed"}),
    ("DELETE", "/v1/users/alice/memories/1", None),
    ("POST", "/v1/users/alice/recall", {"query": "tea"}),
    ("GET", "/v1/users/alice/escalations", None),
    ("POST", "/v1/users/alice/messages/score", {"messages": [{"role": "user", "content": "hi"}]}),
    (
        "POST",
        "/v1/users/alice/messages/compress",
        {"messages": [{"role": "user", "content": "hi"}], "target_count": 1},
    ),
]
ADMIN_CALLS: list[Call] = [
    ("GET", "/admin/users", None),
    ("GET", "/admin/users/alice/memories", None),
    ("GET", "/admin/memories/1", None),
    ("GET", "/admin/jobs", None),
    ("POST", "/admin/jobs/rescore", None),
    ("GET", "/admin/stats", None),
    ("GET", "/admin/users/alice/conversations/c1/message-scores", None),
    ("GET", "/admin/users/alice/conversations/c1/compressions", None),
]
BAD_HEADERS = [
    {},
    bearer("nope"),
    bearer(SERVICE + "x"),
    bearer(""),
    {"Authorization": SERVICE},
    {"Authorization": f"Basic {SERVICE}"},
]


async def call(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    payload: object,
    headers: dict[str, str],
) -> httpx.Response:
    return await client.request(method, url, json=payload, headers=headers)


@pytest.mark.parametrize(("method", "url", "payload"), V1_CALLS + ADMIN_CALLS)
async def test_missing_or_wrong_key_is_401(
    keyed: httpx.AsyncClient, method: str, url: str, payload: object
) -> None:
    for headers in BAD_HEADERS:
        resp = await call(keyed, method, url, payload, headers)
        assert_error(resp, 401, "unauthorized")
        assert resp.headers["WWW-Authenticate"] == "Bearer"
    stats = await keyed.get("/admin/stats", headers=bearer(ADMIN))
    assert body(stats, 200)["memories"] == 0


@pytest.mark.parametrize("key", [SERVICE, ADMIN])
async def test_service_and_admin_keys_use_v1(keyed: httpx.AsyncClient, key: str) -> None:
    headers = bearer(key)
    created = await keyed.post(
        "/v1/users/alice/memories", json={"content": "I drink green tea"}, headers=headers
    )
    memory_id = body(created, 201)["id"]
    got = await keyed.get(f"/v1/users/alice/memories/{memory_id}", headers=headers)
    assert body(got, 200)["content"] == "I drink green tea"
    found = await keyed.post("/v1/users/alice/recall", json={"query": "tea"}, headers=headers)
    assert [h["memory"]["id"] for h in body(found, 200)["results"]] == [memory_id]
    listing = await keyed.get("/v1/users/alice/memories", headers=headers)
    assert [m["id"] for m in body(listing, 200)["items"]] == [memory_id]


@pytest.mark.parametrize(("method", "url", "payload"), ADMIN_CALLS)
async def test_service_key_is_forbidden_on_admin(
    keyed: httpx.AsyncClient, method: str, url: str, payload: object
) -> None:
    resp = await call(keyed, method, url, payload, bearer(SERVICE))
    assert_error(resp, 403, "forbidden")
    jobs = await keyed.get("/admin/jobs", headers=bearer(ADMIN))
    assert body(jobs, 200) == []  # not even a forbidden rescoring run was recorded


async def test_admin_key_uses_admin(keyed: httpx.AsyncClient) -> None:
    headers = bearer(ADMIN)
    created = await keyed.post(
        "/v1/users/alice/memories", json={"content": "I drink green tea"}, headers=headers
    )
    memory_id = body(created, 201)["id"]
    users = body(await keyed.get("/admin/users", headers=headers), 200)
    assert [u["user_id"] for u in users["items"]] == ["alice"]
    seen = body(await keyed.get(f"/admin/memories/{memory_id}", headers=headers), 200)
    assert seen["memory"]["id"] == memory_id
    run = body(await keyed.post("/admin/jobs/rescore", headers=headers), 200)
    assert (run["status"], run["rows"]) == ("succeeded", 1)
    assert body(await keyed.get("/admin/stats", headers=headers), 200)["memories"] == 1


@pytest.mark.parametrize("headers", [{}, bearer("nope"), bearer(SERVICE)])
async def test_probes_need_no_key(keyed: httpx.AsyncClient, headers: dict[str, str]) -> None:
    health = await keyed.get("/healthz", headers=headers)
    assert body(health, 200) == {"status": "ok"}
    ready = await keyed.get("/readyz", headers=headers)
    assert body(ready, 200)["status"] == "ready"


async def test_without_keys_auth_is_off(client: httpx.AsyncClient) -> None:
    resp = await client.post("/v1/users/alice/memories", json={"content": "I drink green tea"})
    assert resp.status_code == 201
    assert body(await client.get("/admin/users"), 200)["items"][0]["user_id"] == "alice"
    assert await total_memories(client) == 1


async def test_healthz(client: httpx.AsyncClient) -> None:
    resp = await client.get("/healthz")
    assert body(resp, 200) == {"status": "ok"}


async def test_readyz_reports_the_migrated_head(client: httpx.AsyncClient) -> None:
    ready = body(await client.get("/readyz"), 200)
    assert ready["status"] == "ready"
    assert ready["database"] == "ok"
    assert ready["revision"] == ready["head"]
    assert isinstance(ready["head"], str)
    assert len(ready["head"]) >= 8
