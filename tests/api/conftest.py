"""Fixtures of the API tests beyond tests/conftest.py."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager

from api.app import create_app
from services.core.db import Database
from services.core.settings import Settings
from tests.conftest import FakeClock

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
