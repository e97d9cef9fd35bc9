"""Fixtures of the API tests beyond tests/conftest.py."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager

from api.app import create_app
from services.core.db import Database
from services.core.settings import Settings
from tests.api.chat_proxy_served import SERVICE_KEY, ServedProxy, serving
from tests.chat_upstream import INTERNAL_MODEL, ChatUpstream
from tests.conftest import FakeClock
from tests.providers import ANSWER_TIMEOUT

AppFactory = Callable[..., Awaitable[httpx.AsyncClient]]


@pytest.fixture
async def app_with(db: Database, settings: Settings, clock: FakeClock) -> AsyncIterator[AppFactory]:
    """Clients of apps on the test's database, each with some settings changed; two of them
    are two server processes sharing one database."""
    opened: list[tuple[LifespanManager, httpx.AsyncClient]] = []

    async def make(**changes: Any) -> httpx.AsyncClient:
        app = create_app(settings.model_copy(update=changes), db=db, clock=clock)
        manager = LifespanManager(app, startup_timeout=None)  # as tests/conftest.py's client
        await manager.__aenter__()
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
        opened.append((manager, http))
        return http

    yield make
    for manager, http in reversed(opened):
        await http.aclose()
        await manager.__aexit__(None, None, None)


@pytest.fixture(scope="session")
def chat_upstream() -> Iterator[ChatUpstream]:
    """The loopback OpenAI-compatible model server (tests/chat_upstream.py)."""
    server = ChatUpstream().start()
    yield server
    server.stop()


ProxyFactory = Callable[..., contextlib.AbstractAsyncContextManager[ServedProxy]]


@pytest.fixture
def served_proxy(
    db: Database, settings: Settings, clock: FakeClock, chat_upstream: ChatUpstream
) -> Iterator[ProxyFactory]:
    """Serve the app with the chat proxy in front of ``chat_upstream`` (reset: answering
    normally, nothing recorded), some settings changed: ``async with
    served_proxy(proxy_timeout=0.2) as served``."""
    chat_upstream.reset()
    proxied = settings.model_copy(
        update={
            "llm_base_url": chat_upstream.base_url,
            "llm_model": INTERNAL_MODEL,
            "jarvis_api_keys": [SERVICE_KEY],
            "proxy_timeout": ANSWER_TIMEOUT,
            # The service's own LLM calls (message scoring) are not what these test.
            "message_score_llm_threshold": 0.0,
        }
    )

    def serve(**changes: Any) -> contextlib.AbstractAsyncContextManager[ServedProxy]:
        app = create_app(proxied.model_copy(update=changes), db=db, clock=clock)
        return serving(app)

    yield serve
    chat_upstream.reset()
