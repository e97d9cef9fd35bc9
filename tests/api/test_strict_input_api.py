"""Strict request types, text without NUL or lone surrogates, user ids that are not path
tricks, and an OpenAPI document that says so."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from tests.api.helpers import asgi_call

SURROGATE = '"\\ud800"'  # JSON's escape for a lone surrogate: json.dumps cannot send one


def _with_surrogate(template: str) -> str:
    return template.replace("@", SURROGATE)


async def _raw(client: httpx.AsyncClient, method: str, url: str, body: str) -> httpx.Response:
    return await client.request(
        method, url, content=body.encode(), headers={"content-type": "application/json"}
    )


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("POST", "/v1/users/s/memories", _with_surrogate('{"content": "hi", "emotion_tags": [@]}')),
        (
            "POST",
            "/v1/users/s/memories/batch",
            _with_surrogate('{"items": [{"content": "a", "emotion_tags": [@]}]}'),
        ),
        ("PATCH", "/v1/users/s/memories/1", _with_surrogate('{"emotion_tags": [@]}')),
        ("POST", "/v1/users/s/memories", _with_surrogate('{"content": @}')),
        (
            "POST",
            "/v1/users/s/memories",
            _with_surrogate('{"content": "hi", "metadata": {"k": @}}'),
        ),
        ("POST", "/v1/users/s/memories", _with_surrogate('{"content": "hi", "metadata": {@: 1}}')),
        ("POST", "/v1/users/s/recall", _with_surrogate('{"query": @}')),
        (
            "POST",
            "/v1/users/alice/messages/score",
            _with_surrogate('{"messages": [{"role": "user", "content": @}]}'),
        ),
    ],
)
async def test_a_lone_surrogate_is_422_not_500(
    client: httpx.AsyncClient, method: str, url: str, body: str
) -> None:
    await client.post("/v1/users/s/memories", json={"content": "stored first"})
    response = await _raw(client, method, url, body)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["code"] == "invalid_input"
    listed = await client.get("/v1/users/s/memories")
    assert [m["content"] for m in listed.json()["items"]] == ["stored first"]


NUL = "a\x00b"


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/v1/users/n/memories", {"content": "hi", "source": NUL}),
        ("/v1/users/n/memories", {"content": "hi", "emotion_tags": [NUL]}),
        ("/v1/users/n/memories", {"content": "hi", "metadata": {NUL: 1}}),
        ("/v1/users/n/recall", {"query": NUL}),
        (
            "/v1/users/alice/messages/score",
            {"messages": [{"role": "user", "content": "x", "name": NUL}]},
        ),
        (
            "/v1/users/alice/messages/score",
            {"messages": [{"role": "user", "content": "x", "id": NUL}]},
        ),
        (
            "/v1/users/alice/messages/score",
            {"messages": [{"role": "user", "content": "x"}], "task_context": NUL},
        ),
        (
            "/v1/users/n/context",
            {"messages": [{"role": "user", "content": "x"}], "budget_tokens": 100, "query": NUL},
        ),
    ],
)
async def test_nul_is_refused_in_every_text(
    client: httpx.AsyncClient, url: str, body: dict[str, Any]
) -> None:
    response = await client.post(url, json=body)
    assert response.status_code == 422, response.text
    assert "NUL" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/v1/users/t/recall", {"query": "x", "top_k": "5"}),
        ("/v1/users/t/recall", {"query": "x", "top_k": True}),
        ("/v1/users/t/recall", {"query": "x", "top_k": 5.0}),
        ("/v1/users/t/recall", {"query": "x", "explain": 1}),
        ("/v1/users/t/recall", {"query": 5}),
        ("/v1/users/t/memories", {"content": "hi", "created_at": 1700000000}),
        ("/v1/users/t/memories", {"content": "hi", "created_at": True}),
        ("/v1/users/t/memories", {"content": 5}),
        (
            "/v1/users/alice/messages/score",
            {"messages": [{"role": "user", "content": "x", "timestamp": True}]},
        ),
        (
            "/v1/users/alice/messages/score",
            {"messages": [{"role": "user", "content": "x", "timestamp": "1"}]},
        ),
        (
            "/v1/users/alice/messages/compress",
            {"messages": [{"role": "user", "content": "x"}], "target_count": "1"},
        ),
        (
            "/v1/users/t/context",
            {"messages": [{"role": "user", "content": "x"}], "budget_tokens": True},
        ),
    ],
)
async def test_no_string_or_boolean_passes_for_a_number_nor_a_number_for_a_time(
    client: httpx.AsyncClient, url: str, body: dict[str, Any]
) -> None:
    response = await client.post(url, json=body)
    assert response.status_code == 422, response.text


async def test_a_link_weight_must_be_a_number(client: httpx.AsyncClient) -> None:
    a = (await client.post("/v1/users/w/memories", json={"content": "one"})).json()["id"]
    b = (await client.post("/v1/users/w/memories", json={"content": "two"})).json()["id"]
    url = f"/v1/users/w/memories/{a}/links"
    assert (await client.post(url, json={"target_id": b, "weight": "2"})).status_code == 422
    assert (await client.post(url, json={"target_id": str(b)})).status_code == 422
    assert (await client.post(url, json={"target_id": b, "weight": 2})).status_code == 201


@pytest.mark.parametrize("user", [".", ".."])
async def test_dot_and_dot_dot_are_not_user_ids(client: httpx.AsyncClient, user: str) -> None:
    """uvicorn decodes %2e%2e to .. and keeps it, so the route saw user_id "..": the same
    tenant as a literal ``..``. An HTTP client removes dot segments itself."""
    app = client._transport.app  # type: ignore[attr-defined]
    status, body = await asgi_call(app, "POST", f"/v1/users/{user}/memories", b'{"content": "hi"}')
    assert status == 422, body
    assert "not . or .." in body["error"]["message"]


async def test_ids_that_merely_start_with_dots_still_work(client: httpx.AsyncClient) -> None:
    for user in ("...", ".a", "..b", "a.b"):
        response = await client.post(f"/v1/users/{user}/memories", json={"content": "hi"})
        assert response.status_code == 201, (user, response.text)


async def test_a_405_says_which_methods_are_allowed(client: httpx.AsyncClient) -> None:
    response = await client.put("/v1/users/u/memories")
    assert response.status_code == 405
    assert set(response.headers["allow"].replace(" ", "").split(",")) == {"GET", "POST"}
    assert response.json()["error"]["code"] == "method_not_allowed"


async def test_compress_needs_a_target_before_anything_runs(client: httpx.AsyncClient) -> None:
    response = await client.post(
        "/v1/users/alice/messages/compress", json={"messages": [{"role": "user", "content": "x"}]}
    )
    assert response.status_code == 422
    assert "target_count or budget_tokens" in response.json()["error"]["message"]


async def test_the_openapi_document_declares_the_limits_the_code_enforces(
    client: httpx.AsyncClient,
) -> None:
    spec = (await client.get("/openapi.json")).json()
    schemas = spec["components"]["schemas"]

    def field(model: str, name: str) -> dict[str, Any]:
        prop: dict[str, Any] = schemas[model]["properties"][name]
        options = prop.get("anyOf", [prop])
        return next(o for o in options if o.get("type") != "null")

    assert field("MemoryIn", "content")["pattern"] == "^[^\\x00]*[^\\x00\\s][^\\x00]*$"
    assert field("MemoryIn", "source")["pattern"] == "^[^\\x00]*$"
    tags = field("MemoryIn", "emotion_tags")
    assert (tags["maxItems"], tags["items"]["maxLength"]) == (20, 32)
    assert "pattern" in tags["items"]
    assert field("RecallIn", "query")["pattern"] == "^[^\\x00]*$"
    assert "refactor" in field("ScoreMessagesIn", "task_type")["enum"]
    assert schemas["CompressMessagesIn"]["anyOf"] == [
        {"required": ["target_count"]},
        {"required": ["budget_tokens"]},
    ]
    assert "1900-9998" in field("MemoryIn", "created_at").get("description", "") + json.dumps(
        schemas["MemoryIn"]["properties"]["created_at"]
    )
    listing = spec["paths"]["/v1/users/{user_id}/memories"]["get"]["parameters"]
    cursor = next(p for p in listing if p["name"] == "cursor")
    assert "pattern" in json.dumps(cursor["schema"])
    user = next(p for p in listing if p["name"] == "user_id")
    assert "\\.\\." in user["schema"]["pattern"]
