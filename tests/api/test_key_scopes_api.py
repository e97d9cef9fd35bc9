"""A key reaches only its users, through every route.

The routes are not listed by hand: the tests walk ``app.routes``, so a route added later
is checked too, and fails here if it does not go through api/auth.py. Keys come from
``api_keys`` (JARVIS_AUTH_REQUIRED, no environment keys), on both databases.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.routing import iter_route_contexts

from api.app import create_app
from services.access.keys import ApiKeyService
from services.core.db import Database
from services.core.settings import Settings
from tests.api.helpers import assert_error, body
from tests.conftest import FakeClock
from tests.timing import lifespan

INSIDE, OUTSIDE = "acme:alice", "globex:bob"
# Routes anyone may call: probes, the OpenAPI document and its pages, the console's login.
PUBLIC = re.compile(r"^/(healthz|readyz|openapi\.json|docs|redoc|admin/console/log(in|out))")
# An MCP call per tool, valid apart from the user: a tool added later fails
# test_every_mcp_tool_refuses_a_user_outside_the_key until it is listed here.
TOOL_ARGUMENTS: dict[str, dict[str, Any]] = {
    "remember": {"content": "I drink green tea"},
    "recall": {"query": "tea"},
    "forget": {"memory_id": 1},
    "list_memories": {},
    "correct_fact": {"memory_id": 1, "correction": "I drink black tea"},
    "context": {"messages": [{"role": "user", "content": "tea?"}], "budget_tokens": 200},
}


@dataclass
class Keyed:
    """The app with database keys: ``tenant`` reaches ``acme:`` users, ``tenant_admin``
    too with the admin routes, ``admin`` every user; ``revoked`` was an all-users key."""

    app: FastAPI
    http: httpx.AsyncClient
    db: Database
    clock: FakeClock
    tenant: str
    tenant_admin: str
    admin: str
    revoked: str
    revoked_id: int


async def _create(db: Database, clock: FakeClock, scope: str, *, admin: bool = False) -> Any:
    async with db.unit_of_work() as session:
        return await ApiKeyService(session, clock).create(f"test {scope}", scope, admin=admin)


@pytest.fixture
async def keyed(db: Database, clock: FakeClock) -> AsyncIterator[Keyed]:
    settings = Settings(
        _env_file=None,
        scheduler_enabled=False,
        freeze_startup_heap=False,
        jarvis_auth_required=True,
    )
    tenant = await _create(db, clock, "prefix:acme:")
    tenant_admin = await _create(db, clock, "prefix:acme:", admin=True)
    admin = await _create(db, clock, "all", admin=True)
    revoked = await _create(db, clock, "all")
    async with db.unit_of_work() as session:
        await ApiKeyService(session, clock).revoke(revoked.key.id)
    app = create_app(settings, db=db, clock=clock)
    async with (
        lifespan(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http,
    ):
        yield Keyed(
            app,
            http,
            db,
            clock,
            tenant.secret,
            tenant_admin.secret,
            admin.secret,
            revoked.secret,
            revoked.key.id,
        )


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _routes(app: FastAPI) -> list[tuple[str, str]]:
    """(method, path template) of every HTTP route of the app, included routers' too;
    ``/mcp`` takes its user in each tool call (test_every_mcp_tool_...)."""
    return [
        (method, route.path)
        for route in iter_route_contexts(app.routes)
        if route.path is not None and route.methods and route.path != "/mcp"
        for method in sorted(route.methods - {"HEAD"})
    ]


def _url(template: str, user_id: str) -> str:
    """A concrete path: the user, and a plausible value for every other parameter."""
    url = template.replace("{user_id}", user_id).replace("{memory_id}", "1")
    return re.sub(r"\{[a-z_]+\}", "c1", url)


async def _users(keyed: Keyed) -> list[str]:
    listed = await keyed.http.get("/admin/users", headers=bearer(keyed.admin))
    return [u["user_id"] for u in body(listed, 200)["items"]]


async def test_no_route_reaches_a_user_outside_the_key(keyed: Keyed) -> None:
    about_a_user = [(m, p) for m, p in _routes(keyed.app) if "{user_id}" in p]
    assert len(about_a_user) >= 20  # the walk found the routes
    assert ("POST", "/v1/users/{user_id}/messages/score") in about_a_user
    for key in (keyed.tenant, keyed.tenant_admin):
        for method, template in about_a_user:
            resp = await keyed.http.request(
                method, _url(template, OUTSIDE), json={}, headers=bearer(key)
            )
            assert resp.status_code == 403, f"{method} {template}: {resp.status_code}"
            assert resp.json()["error"]["code"] == "forbidden"
    assert OUTSIDE not in await _users(keyed)


async def test_the_key_reaches_its_own_users(keyed: Keyed) -> None:
    """Inside its prefix the key passes the check (what follows is the route's answer:
    these bodies are empty, so a 422 is fine; a 401 or 403 is not)."""
    for method, template in _routes(keyed.app):
        if "{user_id}" not in template or template.startswith("/admin/console"):
            continue  # the console spans every user (test_routes_spanning_every_user...)
        key = keyed.tenant_admin if template.startswith("/admin") else keyed.tenant
        resp = await keyed.http.request(
            method, _url(template, INSIDE), json={}, headers=bearer(key)
        )
        assert resp.status_code not in (401, 403), f"{method} {template}: {resp.text}"
    stored = await keyed.http.post(
        f"/v1/users/{INSIDE}/memories",
        json={"content": "I drink tea"},
        headers=bearer(keyed.tenant),
    )
    assert body(stored, 201)["content"] == "I drink tea"


async def test_routes_spanning_every_user_need_an_all_users_admin_key(keyed: Keyed) -> None:
    spanning = [
        (m, p)
        for m, p in _routes(keyed.app)
        if "{user_id}" not in p and not PUBLIC.match(p) and not p.startswith("/v1/")
    ]
    assert ("GET", "/admin/users") in spanning
    assert ("GET", "/metrics") in spanning
    for key in (keyed.tenant, keyed.tenant_admin):
        for method, template in spanning:
            resp = await keyed.http.request(
                method, _url(template, OUTSIDE), json={}, headers=bearer(key)
            )
            # 410: a removed route (api/routes/moved.py), which answers nothing else.
            assert resp.status_code in (403, 410), f"{method} {template}: {resp.status_code}"
    for method, template in spanning:
        resp = await keyed.http.request(
            method, _url(template, OUTSIDE), json={}, headers=bearer(keyed.admin)
        )
        assert resp.status_code not in (401, 403), f"{method} {template}: {resp.text}"


# The chat proxy names its person in the request (X-Jarvis-User, the body's user) and
# checks the key itself (tests/api/test_chat_proxy_access.py); /v1/models is the model
# server's list, about no one.
PERSON_IN_THE_REQUEST = {("POST", "/v1/chat/completions"), ("GET", "/v1/models")}


async def test_v1_routes_are_about_a_user_or_gone(keyed: Keyed) -> None:
    """A ``/v1`` route without a user would let a prefix key act beyond its tenant."""
    for method, template in _routes(keyed.app):
        if (method, template) in PERSON_IN_THE_REQUEST:
            continue
        if template.startswith("/v1/") and "{user_id}" not in template:
            resp = await keyed.http.request(method, template, json={}, headers=bearer(keyed.tenant))
            assert_error(resp, 410, "gone")


async def _mcp(keyed: Keyed, key: str, method: str, params: dict[str, Any]) -> httpx.Response:
    return await keyed.http.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        headers={**bearer(key), "Accept": "application/json, text/event-stream"},
    )


async def _tool(keyed: Keyed, key: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    resp = await _mcp(keyed, key, "tools/call", {"name": name, "arguments": arguments})
    result: dict[str, Any] = body(resp, 200)["result"]
    return result


async def test_every_mcp_tool_refuses_a_user_outside_the_key(keyed: Keyed) -> None:
    listed = body(await _mcp(keyed, keyed.tenant, "tools/list", {}), 200)["result"]["tools"]
    assert {t["name"] for t in listed} == set(TOOL_ARGUMENTS)
    for name, arguments in TOOL_ARGUMENTS.items():
        result = await _tool(keyed, keyed.tenant, name, {"user_id": OUTSIDE, **arguments})
        assert result["isError"], (name, result)
        assert "forbidden: this key reaches only" in result["content"][0]["text"], name
    resource = await _mcp(
        keyed, keyed.tenant, "resources/read", {"uri": f"memory://users/{OUTSIDE}/important"}
    )
    assert "forbidden" in resource.text
    assert "I drink green tea" not in resource.text
    assert OUTSIDE not in await _users(keyed)
    inside = await _tool(keyed, keyed.tenant, "remember", {"user_id": INSIDE, "content": "tea"})
    assert not inside["isError"], inside


async def test_a_revoked_key_is_refused_everywhere(keyed: Keyed) -> None:
    resp = await keyed.http.get(f"/v1/users/{INSIDE}/memories", headers=bearer(keyed.revoked))
    assert "revoked" in assert_error(resp, 401, "unauthorized")["message"]
    resp = await _mcp(keyed, keyed.revoked, "tools/list", {})
    assert_error(resp, 401, "unauthorized")
    for unknown in ("jmk_" + "A" * 43, "not-a-key", ""):
        resp = await keyed.http.get(f"/v1/users/{INSIDE}/memories", headers=bearer(unknown))
        assert_error(resp, 401, "unauthorized")


async def test_revocation_holds_from_the_next_request(keyed: Keyed) -> None:
    fresh = await _create(keyed.db, keyed.clock, "prefix:acme:")
    url = f"/v1/users/{INSIDE}/memories"
    assert body(await keyed.http.get(url, headers=bearer(fresh.secret)), 200)["items"] == []
    async with keyed.db.unit_of_work() as session:
        await ApiKeyService(session, keyed.clock).revoke(fresh.key.id)
    assert_error(await keyed.http.get(url, headers=bearer(fresh.secret)), 401, "unauthorized")


async def test_keys_are_stored_as_hashes(keyed: Keyed) -> None:
    async with keyed.db.unit_of_work() as session:
        keys = await ApiKeyService(session, keyed.clock).all_keys()
    assert len(keys) == 4
    for key in keys:
        assert len(key.secret_hash) == 64
        assert key.secret_hash not in (keyed.tenant, keyed.admin)
        assert key.hint in {
            s[:12] for s in (keyed.tenant, keyed.tenant_admin, keyed.admin, keyed.revoked)
        }
    assert [k.id for k in keys if k.revoked_at is not None] == [keyed.revoked_id]
