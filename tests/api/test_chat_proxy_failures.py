"""The chat proxy when the model server fails, stalls or the person hangs up: the client
learns it as from the model server itself, and nothing is remembered."""

from __future__ import annotations

import asyncio
import contextlib

import openai
import pytest

from tests.api.conftest import ProxyFactory
from tests.api.helpers import assert_error
from tests.chat_upstream import ERROR_BODY, HOLD_SECONDS, ChatUpstream, stream_events
from tests.providers import GIVE_UP_TIMEOUT
from tests.timing import scaled

ADA = "acme:ada"


def chat(text: str, *, stream: bool = False) -> dict[str, object]:
    return {
        "model": "gpt-test",
        "messages": [{"role": "user", "content": text}],
        "user": ADA,
        "stream": stream,
    }


@pytest.mark.parametrize(
    ("status", "error"), [(429, openai.RateLimitError), (500, openai.InternalServerError)]
)
@pytest.mark.parametrize("stream", [False, True])
async def test_an_upstream_error_reaches_the_client_as_it_came(
    served_proxy: ProxyFactory,
    chat_upstream: ChatUpstream,
    status: int,
    error: type[openai.APIStatusError],
    stream: bool,
) -> None:
    chat_upstream.mode, chat_upstream.status = "status", status
    async with served_proxy() as served:
        resp = await served.http.post(
            "/v1/chat/completions", json=chat("I keep bees", stream=stream)
        )
        assert (resp.status_code, resp.json()) == (status, ERROR_BODY)
        with pytest.raises(error) as raised:
            await served.openai().chat.completions.create(
                model="gpt-test",
                messages=[{"role": "user", "content": "I keep bees"}],
                user=ADA,
                stream=stream,
            )
        assert raised.value.status_code == status
        assert raised.value.body == ERROR_BODY["error"]
        assert await served.memories(ADA) == []


async def test_an_upstream_that_does_not_answer_in_time_is_a_504(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    """The model server holds its answer until the test ends: the time-out fires first,
    however loaded the machine."""
    chat_upstream.mode = "hold"
    async with served_proxy(proxy_timeout=GIVE_UP_TIMEOUT) as served:
        resp = await served.http.post("/v1/chat/completions", json=chat("I keep bees"))
        assert_error(resp, 504, "upstream_timeout")
        chat_upstream.release()
        assert await served.memories(ADA) == []


async def test_an_unreachable_upstream_is_a_502(served_proxy: ProxyFactory) -> None:
    async with served_proxy(llm_base_url="http://127.0.0.1:9/v1") as served:
        resp = await served.http.post("/v1/chat/completions", json=chat("I keep bees"))
        assert_error(resp, 502, "upstream_unreachable")
        assert await served.memories(ADA) == []


async def test_the_persons_cancellation_closes_the_upstream_request(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    chat_upstream.mode = "gated"
    # Its time-out is longer than the test waits: only the hang-up can close the request.
    async with served_proxy(proxy_timeout=HOLD_SECONDS) as served:
        async with served.http.stream(
            "POST", "/v1/chat/completions", json=chat("I keep bees", stream=True)
        ) as resp:
            async with asyncio.timeout(scaled(10)):
                first = await anext(resp.aiter_raw())
            assert first == stream_events("gated")[0]
        # The client hung up mid-answer: the proxy hangs up on the model server.
        assert await asyncio.to_thread(chat_upstream.closed.wait, scaled(10))
        assert await served.memories(ADA) == []


async def test_without_a_model_server_the_proxy_says_so(served_proxy: ProxyFactory) -> None:
    async with served_proxy(llm_base_url=None) as served:
        assert_error(
            await served.http.post("/v1/chat/completions", json=chat("Hi")),
            503,
            "llm_not_configured",
        )
        assert_error(await served.http.get("/v1/models"), 503, "llm_not_configured")


async def test_a_request_memory_cannot_serve_is_refused_in_the_services_shape(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    async with served_proxy() as served:
        unnamed = {"model": "m", "messages": [{"role": "user", "content": "Hi"}]}
        assert_error(
            await served.http.post("/v1/chat/completions", json=unnamed), 422, "user_required"
        )
        for bad in ({**unnamed, "user": "a b"}, {**unnamed, "user": ADA, "messages": []}):
            resp = await served.http.post("/v1/chat/completions", json=bad)
            assert_error(resp, 422, "invalid_input")
        resp = await served.http.post(
            "/v1/chat/completions",
            json=unnamed,
            headers={"X-Jarvis-User": ADA, "X-Jarvis-Conversation": "a b"},
        )
        assert_error(resp, 422, "invalid_input")
    assert chat_upstream.chats() == []


async def test_the_persons_cancellation_of_a_whole_answer_closes_the_upstream_request(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    """Not streamed: the proxy waits for the whole answer, and stops when the client goes
    (long before its own time-out, which is longer than the test waits)."""
    chat_upstream.mode = "hold"
    async with served_proxy(proxy_timeout=HOLD_SECONDS) as served:
        asking = asyncio.create_task(
            served.http.post("/v1/chat/completions", json=chat("I keep bees"))
        )
        assert await asyncio.to_thread(chat_upstream.arrived.wait, scaled(10))
        asking.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await asking
        assert await asyncio.to_thread(chat_upstream.closed.wait, scaled(10))
        assert await served.memories(ADA) == []
