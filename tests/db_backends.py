"""One throw-away database per backend and test run (PostgreSQL when TEST_DATABASE_URL)."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy.engine import make_url

from services.core.schema import alembic_config, migrate, scratch_postgres_database

__all__ = ["alembic_config", "fresh_database", "migrate", "postgres_server_url"]


def postgres_server_url() -> str | None:
    """TEST_DATABASE_URL, normalised to the asyncpg driver."""
    url = os.environ.get("TEST_DATABASE_URL")
    if not url:
        return None
    parsed = make_url(url)
    return parsed.set(drivername="postgresql+asyncpg").render_as_string(hide_password=False)


@asynccontextmanager
async def fresh_database(backend: str, tmp_dir: Path) -> AsyncIterator[str]:
    """A new, empty database of ``backend``; dropped afterwards."""
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_dir / f'test-{uuid.uuid4().hex[:8]}.db'}"
        return
    server = postgres_server_url()
    assert server is not None
    async with scratch_postgres_database(server, "jarvis_test") as url:
        yield url
