"""The schema's one maker, Alembic, and throw-away databases for tests and benchmarks."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import make_url

from services.core.db import build_engine

ROOT = Path(__file__).resolve().parents[2]  # services/core/schema.py -> the checkout


def alembic_config(url: str, *, configure_logging: bool = False) -> Config:
    """The project's alembic.ini pointed at ``url`` (logging left to the caller)."""
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logging"] = configure_logging
    return config


def upgrade(url: str, revision: str = "head", *, configure_logging: bool = False) -> None:
    """``alembic upgrade`` through the real env.py."""
    command.upgrade(alembic_config(url, configure_logging=configure_logging), revision)


async def migrate(url: str, revision: str = "head") -> None:
    """``upgrade`` from async code (env.py runs its own event loop, so in a thread)."""
    await asyncio.to_thread(upgrade, url, revision)


@asynccontextmanager
async def scratch_postgres_database(
    server_url: str, prefix: str, template: str | None = None
) -> AsyncIterator[str]:
    """A new database ``<prefix>_<random>`` on a server, empty or a copy of the database
    ``template`` (which nothing may be connected to); dropped afterwards."""
    server = make_url(server_url).set(drivername="postgresql+asyncpg")
    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    admin = build_engine(server.set(database="postgres").render_as_string(hide_password=False))
    try:
        async with admin.connect() as conn:
            conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
            copied = f' TEMPLATE "{template}"' if template else ""
            await conn.execute(text(f'CREATE DATABASE "{name}"{copied}'))
        try:
            yield server.set(database=name).render_as_string(hide_password=False)
        finally:
            async with admin.connect() as conn:
                conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
                await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        await admin.dispose()
