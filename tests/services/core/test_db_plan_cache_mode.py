"""Every PostgreSQL connection of an engine gets the configured plan_cache_mode."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from services.core.db import Database
from services.core.settings import Settings
from tests.db_backends import postgres_server_url

pytestmark = pytest.mark.skipif(not postgres_server_url(), reason="needs TEST_DATABASE_URL")


@pytest.mark.parametrize(
    ("configured", "expected"),
    [({}, "force_generic_plan"), ({"db_plan_cache_mode": "auto"}, "auto")],
)
async def test_connections_plan_as_configured(configured: dict[str, str], expected: str) -> None:
    url = postgres_server_url()
    assert url is not None
    settings = Settings(_env_file=None, database_url=url, **configured)  # type: ignore[arg-type]
    db = Database.from_settings(settings)
    try:
        async with db.reader() as session:
            assert await session.scalar(text("SHOW plan_cache_mode")) == expected
        async with db.unit_of_work() as session:
            assert await session.scalar(text("SHOW plan_cache_mode")) == expected
    finally:
        await db.engine.dispose()


def test_an_unknown_mode_is_refused() -> None:
    with pytest.raises(ValueError, match="db_plan_cache_mode"):
        Settings(_env_file=None, db_plan_cache_mode="sometimes")
