"""Throw-away databases per backend and test run (PostgreSQL when TEST_DATABASE_URL)."""

from __future__ import annotations

import os
import sqlite3
import tempfile
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager, closing
from pathlib import Path

from sqlalchemy.engine import make_url

from services.core.schema import alembic_config, migrate, scratch_postgres_database

__all__ = [
    "alembic_config",
    "drop_templates",
    "fresh_database",
    "migrate",
    "migrated_copy",
    "postgres_server_url",
]


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


# Per process (xdist worker): each backend's database migrated to head once, which
# migrated_copy copies rather than running every migration again (about a second of
# Alembic a database on SQLite, more on PostgreSQL).
_templates: dict[str, str] = {}
_kept = AsyncExitStack()


async def _template(backend: str) -> str:
    if backend not in _templates:
        folder = Path(tempfile.mkdtemp(prefix="jarvis-template-"))
        url = await _kept.enter_async_context(fresh_database(backend, folder))
        await migrate(url)  # its engine is disposed: nothing stays connected to it
        _templates[backend] = url
    return _templates[backend]


@asynccontextmanager
async def migrated_copy(backend: str, tmp_dir: Path) -> AsyncIterator[str]:
    """A new database of ``backend`` at the migrations' head, as Alembic leaves one (a
    copy of this process's template); dropped afterwards."""
    template = await _template(backend)
    if backend == "sqlite":
        async with fresh_database(backend, tmp_dir) as url:
            with (
                closing(sqlite3.connect(_sqlite_file(template))) as source,
                closing(sqlite3.connect(_sqlite_file(url))) as target,
            ):
                source.backup(target)
            yield url
        return
    server = postgres_server_url()
    assert server is not None
    async with scratch_postgres_database(server, "jarvis_test", make_url(template).database) as url:
        yield url


def _sqlite_file(url: str) -> str:
    path = make_url(url).database
    assert path is not None
    return path


async def drop_templates() -> None:
    """Drop the templates this process made (the end of the test session)."""
    await _kept.aclose()
    _templates.clear()
