"""Erasure covers every table, the SQLite file keeps no bytes of forgotten text, and the
hash secret is stable. The API-level canary tests: tests/api/test_forgetting_api.py."""

from __future__ import annotations

import sqlite3
import stat
from contextlib import closing
from pathlib import Path

from sqlalchemy import text

from models import Base
from services.composition import Services
from services.core.schema import migrate
from services.core.secret import _read_or_create, keyed_hash, secret_file
from services.core.settings import Settings
from services.remembering.memory_service import MemoryChanges, NewMemory, quotable
from services.repositories.erasure import ERASED

CANARY = "My secret PIN is ZQXJ7781 and I hate the dentist"


def test_every_table_with_a_user_id_is_erased() -> None:
    erased = {model.__tablename__ for _, model in ERASED}
    with_users = {t.name for t in Base.metadata.tables.values() if "user_id" in t.c}
    assert with_users - erased == set(), "a table of people's rows the erasure forgets"


def test_quotable_keeps_the_identifiers_of_a_text() -> None:
    assert quotable(CANARY) == [
        "my secret pin is zqxj7781 and i hate the dentist",
        "zqxj7781",
    ]
    assert quotable("ok") == []


def test_the_generated_secret_is_made_once_and_kept_private(tmp_path: Path) -> None:
    database = tmp_path / "jarvis.db"
    path = secret_file(f"sqlite+aiosqlite:///{database}")
    assert path == tmp_path / "jarvis.db.hash-secret"
    first = _read_or_create(path)
    assert _read_or_create(path) == first  # a restart reads it back
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(first) == 64
    assert secret_file("sqlite://") is None
    assert keyed_hash(first, "x") != keyed_hash(b"another secret key", "x")


def checkpoint(database: Path) -> None:
    """Copy the WAL into the database file and empty it."""
    with closing(sqlite3.connect(database)) as connection:
        busy, _, _ = connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0


async def test_the_sqlite_file_holds_no_byte_of_forgotten_text(tmp_path: Path) -> None:
    database = tmp_path / "jarvis.db"
    url = f"sqlite+aiosqlite:///{database}"
    await migrate(url)
    settings = Settings(
        _env_file=None, database_url=url, scheduler_enabled=False, freeze_startup_heap=False
    )
    services = Services.from_settings(settings)
    try:
        async with services.db.unit_of_work() as session:
            memories = services.memories(session)
            deleted = await memories.add("alice", NewMemory(CANARY, conversation_id="c"))
            edited = await memories.add("alice", NewMemory(CANARY + " (edited away)"))
            await memories.add("bob", NewMemory(CANARY))
            for i in range(30):  # enough rows that pages are split and freed
                await memories.add("alice", NewMemory(f"Note {i} about the garden and tea"))
        checkpoint(database)  # the canary is in the file's pages now
        async with services.db.unit_of_work() as session:
            memories = services.memories(session)
            await memories.delete("alice", deleted.memory.id)
            await memories.update("alice", edited.memory.id, MemoryChanges(content="New PIN"))
        async with services.db.unit_of_work() as session:
            erased = await services.erasure(session).erase("bob")
            # On by default in Debian's SQLite, not in every build: set by the service.
            assert (await session.execute(text("PRAGMA secure_delete"))).scalar() == 1
        assert erased.counts["memories"] == 1
    finally:
        await services.db.dispose()
    assert_file_forgot(database)


def assert_file_forgot(database: Path) -> None:
    checkpoint(database)
    assert database.with_name("jarvis.db.hash-secret").is_file()
    for file in database.parent.glob("jarvis.db*"):
        data = file.read_bytes()
        assert b"ZQXJ7781" not in data, file
        assert b"zqxj7781" not in data, file
    assert b"garden" in database.read_bytes()  # what was not forgotten is still there
