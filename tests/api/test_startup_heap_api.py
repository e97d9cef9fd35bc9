"""The app parks its startup heap out of the cyclic collector's walk (api/server/heap.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import httpx
import pytest

from api.app import create_app
from services.core.db import Database
from services.core.settings import Settings
from tests.conftest import FakeClock
from tests.timing import lifespan


@pytest.fixture
def thawed() -> Iterator[None]:
    """Start and end with nothing frozen, so no other test meets a frozen heap."""
    gc.unfreeze()
    yield
    gc.unfreeze()


async def test_startup_freezes_what_is_alive_and_the_app_still_serves(
    thawed: None, db: Database, settings: Settings, clock: FakeClock
) -> None:
    app = create_app(settings.model_copy(update={"freeze_startup_heap": True}), db=db, clock=clock)
    assert gc.get_freeze_count() == 0
    async with lifespan(app):
        # The app itself, its routes and the analyzer's lexicons are all in there.
        assert gc.get_freeze_count() > 10_000
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as http:
            stored = await http.post("/v1/users/u1/memories", json={"content": "我喜欢喝乌龙茶"})
            assert stored.status_code == 201
            found = await http.post("/v1/users/u1/recall", json={"query": "乌龙茶"})
            assert [r["memory"]["content"] for r in found.json()["results"]] == ["我喜欢喝乌龙茶"]


async def test_startup_leaves_the_heap_alone_when_told_to(
    thawed: None, db: Database, settings: Settings, clock: FakeClock
) -> None:
    app = create_app(settings, db=db, clock=clock)
    async with lifespan(app):
        assert gc.get_freeze_count() == 0
