"""Create, migrate and drop one throw-away database per backend and test run."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import make_url

from services.db import build_engine

ROOT = Path(__file__).resolve().parent.parent


def alembic_config(url: str) -> Config:
    """The project's alembic.ini pointed at ``url``, leaving pytest's logging alone."""
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logging"] = False
    return config


async def migrate(url: str, revision: str = "head") -> None:
    """``alembic upgrade`` through the real env.py (it runs its own event loop)."""
    await asyncio.to_thread(command.upgrade, alembic_config(url), revision)


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
    name = f"jarvis_test_{uuid.uuid4().hex[:12]}"
    admin = build_engine(
        make_url(server).set(database="postgres").render_as_string(hide_password=False)
    )
    try:
        async with admin.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            await conn.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            yield make_url(server).set(database=name).render_as_string(hide_password=False)
        finally:
            async with admin.connect() as conn:
                conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
                await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()
