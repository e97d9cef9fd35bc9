"""Readiness: the database answers and its schema is at the migrations' head."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from alembic.config import Config
from alembic.script import ScriptDirectory
from sqlalchemy import text

import migrations
from services.core.db import Database

MIGRATIONS_DIR = Path(migrations.__file__).parent


def migration_heads() -> set[str]:
    """The head revision(s) of the migration scripts shipped with the service."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return set(ScriptDirectory.from_config(config).get_heads())


@dataclass(frozen=True)
class Readiness:
    """Whether the service can take traffic, and why not."""

    ready: bool
    database: str
    revision: str | None
    head: str


async def check_readiness(db: Database) -> Readiness:
    """Ask the database for its alembic revision and compare with the scripts' head."""
    head = ",".join(sorted(migration_heads()))
    try:
        async with db.unit_of_work() as session:
            revision = (
                await session.execute(text("SELECT version_num FROM alembic_version"))
            ).scalar_one_or_none()
    except Exception as exc:  # any driver error means "not ready", with the reason
        return Readiness(False, f"unavailable: {type(exc).__name__}", None, head)
    return Readiness(revision == head, "ok", revision, head)
