"""A throw-away database per backend: a SQLite temp file, or a fresh PostgreSQL database.

The PostgreSQL server comes from ``BENCH_DATABASE_URL`` (default: the local server);
the bench creates ``jarvis_bench_<random>`` on it, migrates it with the project's
Alembic env.py, and drops it at the end whatever happens.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from sqlalchemy.engine import make_url

from services.core.schema import migrate, scratch_postgres_database

DEFAULT_SERVER_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"


def server_url(url: str | None = None) -> str:
    """``url``, else BENCH_DATABASE_URL, else the local server; always the asyncpg driver."""
    raw = url or os.environ.get("BENCH_DATABASE_URL") or DEFAULT_SERVER_URL
    parsed = make_url(raw).set(drivername="postgresql+asyncpg")
    return parsed.render_as_string(hide_password=False)


@asynccontextmanager
async def fresh_database(
    backend: str, tmp_dir: Path, pg_server: str | None = None
) -> AsyncIterator[str]:
    """A new, migrated database of ``backend``; its URL, dropped (or deleted) afterwards."""
    if backend == "sqlite":
        path = tmp_dir / f"bench-{uuid.uuid4().hex[:8]}.db"
        url = f"sqlite+aiosqlite:///{path}"
        try:
            await migrate(url)
            yield url
        finally:
            for suffix in ("", "-wal", "-shm"):
                await asyncio.to_thread(Path(f"{path}{suffix}").unlink, missing_ok=True)
        return
    async with scratch_postgres_database(server_url(pg_server), "jarvis_bench") as url:
        await migrate(url)
        yield url
