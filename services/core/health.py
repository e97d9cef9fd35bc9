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
MIGRATE_COMMAND = "jarvis-memory migrate"


def _scripts() -> ScriptDirectory:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return ScriptDirectory.from_config(config)


def migration_heads() -> set[str]:
    """The head revision(s) of the migration scripts shipped with the service."""
    return set(_scripts().get_heads())


def pending_migrations(revision: str | None) -> list[str]:
    """The migrations between ``revision`` (None: an empty database) and the head, oldest
    first, each as ``<revision> (<message>)``; the revision itself when the scripts do not
    know it (a database migrated by a newer version of the service)."""
    scripts = _scripts()
    try:
        steps = list(scripts.iterate_revisions("heads", revision or "base"))
    except Exception:  # alembic's errors for an unknown revision vary by version
        return [f"{revision} (unknown to this version of the service)"]
    return [f"{s.revision} ({s.doc})" for s in reversed(steps)]


@dataclass(frozen=True)
class Readiness:
    """Whether the service can take traffic, and why not."""

    ready: bool
    database: str
    revision: str | None
    head: str
    pending: tuple[str, ...] = ()


async def check_readiness(db: Database) -> Readiness:
    """Ask the database for its alembic revision and compare with the scripts' head.

    A database that answers but has no schema, or an older one, is "not migrated" with
    the migrations it lacks named (it was "unavailable: OperationalError").
    Read-only units of work: on SQLite a check must not queue for the write lock.
    """
    head = ",".join(sorted(migration_heads()))
    try:
        async with db.reader() as session:
            await session.execute(text("SELECT 1"))
    except Exception as exc:  # any driver error means "not ready", with the reason
        return Readiness(False, f"unavailable: {type(exc).__name__}", None, head)
    try:
        async with db.reader() as session:
            revision = (
                await session.execute(text("SELECT version_num FROM alembic_version"))
            ).scalar_one_or_none()
    except Exception:  # no alembic_version table: nothing was ever migrated
        revision = None
    if revision == head:
        return Readiness(True, "ok", revision, head)
    pending = tuple(pending_migrations(revision))
    state = "no schema" if revision is None else f"at {revision}"
    return Readiness(
        False,
        f"not migrated ({state}; head {head}): run `{MIGRATE_COMMAND}`",
        revision,
        head,
        pending,
    )
