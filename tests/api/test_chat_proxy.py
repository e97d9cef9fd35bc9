"""``POST /v1/chat/completions``: the official ``openai`` client, pointed at the service
(uvicorn on loopback), gets what the loopback model server answers, with the person's
memories in what the model received and their turn remembered (docs/chat-proxy.md)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx

from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import get_token_estimator
from services.core.settings import Settings
from services.proxy.messages import to_chat_messages
from tests.api.chat_proxy_served import SERVICE_KEY
from tests.api.conftest import ProxyFactory
from tests.chat_upstream import (
    MODELS,
    TOKENS,
    TOOL_CALL,
    ChatUpstream,
    completion,
    stream_events,
)
from tests.timing import scaled

ADA = "acme:ada"
AUTH = {"Authorization": f"Bearer {SERVICE_KEY}"}


def chat(text: str, **fields: Any) -> dict[str, Any]:
    """A chat-completions body with one user message."""
    return {"model": "gpt-test", "messages": [{"role": "user", "content": text}], **fields}


def memory_block(received: dict[str, Any]) -> str:
    """The memory_context message the model received ("" when there was none)."""
    blocks = [m["content"] for m in received["messages"] if m.get("name") == "memory_context"]
    return blocks[0] if blocks else ""


async def test_a_streamed_answer_arrives_event_for_event(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    async with served_proxy() as served:
        client = served.openai()
        stream = await client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "Hi"}], stream=True, user=ADA
        )
        deltas = [c.choices[0].delta.content async for c in stream]
        assert deltas == ["", *TOKENS, None]
        async with served.http.stream(
            "POST", "/v1/chat/completions", json=chat("Hi", stream=True, user=ADA)
        ) as resp:
            assert resp.status_code == 200
            assert resp.headers["content-type"].startswith("text/event-stream")
            received = b"".join([chunk async for chunk in resp.aiter_raw()])
        assert received == b"".join(stream_events("answer"))


async def test_an_answer_not_streamed_comes_back_as_the_model_sent_it(
    served_proxy: ProxyFactory,
) -> None:
    async with served_proxy() as served:
        client = served.openai()
        answer = await client.chat.completions.create(
            model="gpt-test", messages=[{"role": "user", "content": "Hi"}], user=ADA
        )
        assert answer.choices[0].message.content == "".join(TOKENS)
        resp = await served.http.post("/v1/chat/completions", json=chat("Hi", user=ADA))
        assert resp.json() == completion("answer")  # x_upstream_extra too


async def test_a_stream_is_relayed_before_it_ends(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    """The first event reaches the client while the model still holds the rest: a proxy
    that gathered the stream would wait here until the time limit."""
    chat_upstream.mode = "gated"
    async with served_proxy() as served:
        async with served.http.stream(
            "POST", "/v1/chat/completions", json=chat("Hi", stream=True, user=ADA)
        ) as resp:
            chunks = resp.aiter_raw()
            async with asyncio.timeout(scaled(10)):
                first = await anext(chunks)
            assert first == stream_events("gated")[0]
            assert not chat_upstream.gate.is_set()
            chat_upstream.gate.set()
            rest = b"".join([chunk async for chunk in chunks])
            assert first + rest == b"".join(stream_events("gated"))
        assert [m["content"] for m in await served.memories(ADA)] == ["Hi"]


async def test_the_turn_is_remembered_and_recalled_in_the_next_conversation(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    said = "My sister Ada lives in Lisbon with her dog"
    async with served_proxy() as served:
        client = served.openai(**{"X-Jarvis-Conversation": "trip-1"})
        stream = await client.chat.completions.create(
            model="gpt-test",
            messages=[
                {"role": "system", "content": "You are kind."},
                {"role": "user", "content": said},
            ],
            stream=True,
            user=ADA,
        )
        assert [c async for c in stream]
        [stored] = await served.memories(ADA)
        assert (stored["content"], stored["role"]) == (said, "user")
        assert (stored["conversation_id"], stored["source"]) == ("trip-1", "chat_proxy")
        answer = await served.openai().chat.completions.create(
            model="gpt-test",
            messages=[{"role": "user", "content": "Where does my sister live?"}],
            user=ADA,
            extra_headers={"X-Jarvis-Conversation": "later"},
        )
        assert answer.choices[0].message.content == "".join(TOKENS)
        received = chat_upstream.chats()[-1].body
        assert "Lisbon" in memory_block(received)
        # The frontend's messages went as they were, its question last.
        assert received["messages"][-1] == {"role": "user", "content": "Where does my sister live?"}
        assert received["user"] == ADA
        # The caller's key is the service's: the model server gets LLM_API_KEY (or none).
        assert SERVICE_KEY not in json.dumps(chat_upstream.chats()[-1].headers)


async def test_tools_images_and_unknown_fields_pass_through(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}
    tools: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": {}}}]
    messages: Any = [
        {"role": "user", "content": [{"type": "text", "text": "Weather?"}, image]},
        {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]},
        {"role": "tool", "tool_call_id": "call_1", "content": '{"sky": "clear"}'},
        {"role": "user", "content": "And tomorrow?", "x_frontend": {"id": 7}},
    ]
    sent = {"model": "gpt-test", "messages": messages, "tools": tools, "user": ADA}
    sent |= {"tool_choice": "auto", "x_vendor_option": [1, 2]}
    chat_upstream.mode = "tool_call"
    async with served_proxy() as served:
        resp = await served.http.post("/v1/chat/completions", json=sent)
        assert resp.json() == completion("tool_call")
        received = chat_upstream.chats()[-1].body
        assert {k: v for k, v in received.items() if k != "messages"} == {
            k: v for k, v in sent.items() if k != "messages"
        }
        assert [m for m in received["messages"] if m.get("name") != "memory_context"] == messages
        client = served.openai()
        stream = await client.chat.completions.create(
            model="gpt-test", messages=messages, tools=tools, stream=True, user=ADA
        )
        calls = [c.choices[0].delta.tool_calls async for c in stream]
        assert calls[0] is not None
        assert calls[0][0].function is not None
        assert calls[0][0].function.arguments == TOOL_CALL["function"]["arguments"]  # type: ignore[index]
        # The person's last turn is remembered, as text.
        assert [m["content"] for m in await served.memories(ADA)] == ["And tomorrow?"]


async def test_memory_off_is_a_pure_pass_through(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    sent = chat("I keep bees", user=ADA, metadata={"conversation_id": "c1"})
    async with served_proxy() as served:
        await served.http.post(
            "/v1/users/acme:ada/memories", json={"content": "I keep bees in the garden"}
        )
        resp = await served.http.post(
            "/v1/chat/completions", json=sent, headers={"X-Jarvis-Memory": "off"}
        )
        assert resp.json() == completion("answer")
        assert "x-jarvis-conversation" not in resp.headers
        assert chat_upstream.chats()[-1].body == sent
        assert [m["content"] for m in await served.memories(ADA)] == ["I keep bees in the garden"]
        # No person is needed either.
        unnamed = await served.http.post(
            "/v1/chat/completions", json=chat("Hi"), headers={"X-Jarvis-Memory": "off"}
        )
        assert unnamed.status_code == 200


async def test_the_conversation_is_the_frontends_or_derived_from_its_first_message(
    served_proxy: ProxyFactory,
) -> None:
    first = {"role": "user", "content": "Plan my week"}
    later = [first, {"role": "assistant", "content": "Sure"}, {"role": "user", "content": "Go"}]
    async with served_proxy() as served:

        async def conversation(messages: list[dict[str, Any]], **fields: Any) -> str:
            sent = {"model": "m", "messages": messages, "user": ADA, **fields}
            resp = await served.http.post("/v1/chat/completions", json=sent)
            assert resp.status_code == 200, resp.text
            return resp.headers["x-jarvis-conversation"]

        derived = await conversation([first])
        assert derived.startswith("chat-")
        assert await conversation(later) == derived
        assert await conversation([first], metadata={"conversation_id": "owui-42"}) == "owui-42"
        assert await conversation([first], chat_id="with spaces") != derived
        stored = {m["content"]: m["conversation_id"] for m in await served.memories(ADA)}
        assert stored["Go"] == derived


async def test_models_are_the_model_servers(served_proxy: ProxyFactory) -> None:
    async with served_proxy() as served:
        client = served.openai()
        listed = await client.models.list()
        assert [m.id for m in listed.data] == ["upstream-model"]
        raw = await served.http.get("/v1/models")
        assert json.loads(raw.content) == MODELS


async def test_the_model_map_renames_the_model_for_the_upstream(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    async with served_proxy(proxy_model_map={"memory-gpt": "upstream-model"}) as served:
        resp = await served.http.post("/v1/chat/completions", json=chat("Hi", model="memory-gpt"))
        assert resp.status_code == 422  # no person: memory needs one
        sent = chat("Hi", model="memory-gpt", user=ADA)
        await served.http.post("/v1/chat/completions", json=sent)
    assert chat_upstream.chats()[-1].body["model"] == "upstream-model"


async def test_the_service_is_an_httpx_base_url_too(served_proxy: ProxyFactory) -> None:
    """A client that is not OpenAI's (plain HTTP, as LibreChat and Open WebUI send)."""
    async with served_proxy() as served, httpx.AsyncClient(base_url=served.url) as plain:
        resp = await plain.post(
            "/v1/chat/completions", json=chat("Hi"), headers={**AUTH, "X-Jarvis-User": ADA}
        )
        assert resp.json()["choices"][0]["message"]["content"] == "".join(TOKENS)


async def test_open_webuis_user_and_chat_headers_name_the_person_and_conversation(
    served_proxy: ProxyFactory,
) -> None:
    """Open WebUI with ENABLE_FORWARD_USER_INFO_HEADERS sends its user's id (a UUID)."""
    person = "acme:0b4e8d4c-6f1a-4d0e-9a63-1f2d3c4b5a69"
    headers = {"X-OpenWebUI-User-Id": person, "X-OpenWebUI-Chat-Id": "owui-chat-7"}
    async with served_proxy() as served:
        resp = await served.http.post("/v1/chat/completions", json=chat("Hi"), headers=headers)
        assert resp.headers["x-jarvis-conversation"] == "owui-chat-7"
        [stored] = await served.memories(person)
        assert (stored["content"], stored["conversation_id"]) == ("Hi", "owui-chat-7")


async def test_a_long_conversation_reaches_the_model_within_its_window(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream, settings: Settings
) -> None:
    """The window less the answer's max_tokens, as context assembly counts tokens: the
    history is shortened, the memories and the question kept."""
    history: list[dict[str, Any]] = [{"role": "system", "content": "You are kind."}]
    for turn in range(30):
        role = "user" if turn % 2 == 0 else "assistant"
        history.append({"role": role, "content": f"Turn {turn}: " + "we talked of weather " * 12})
    question = {"role": "user", "content": "Where does my sister live?"}
    sent: dict[str, Any] = {"model": "small", "messages": [*history, question], "user": ADA}
    sent["max_tokens"] = 100
    async with served_proxy(proxy_model_context_tokens={"small": 600}) as served:
        await served.http.post(
            f"/v1/users/{ADA}/memories", json={"content": "My sister lives in Lisbon"}
        )
        resp = await served.http.post("/v1/chat/completions", json=sent)
        assert resp.status_code == 200, resp.text
    received = chat_upstream.chats()[-1].body["messages"]
    estimator = get_token_estimator(settings.token_estimator)
    as_chat = [ChatMessage(m["role"], m["content"], name=m.get("name")) for m in received]
    assert estimator.messages(as_chat) <= 500
    assert estimator.messages(as_chat) < estimator.messages(to_chat_messages(sent["messages"]))
    assert "Lisbon" in memory_block({"messages": received})
    assert (received[0], received[-1]) == (history[0], question)
