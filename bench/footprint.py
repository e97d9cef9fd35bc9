"""What the server and the database occupy: the process's RSS and the database's size."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select, text

from bench.cpu import children
from models import UserMemory
from services.core.db import Database

KIB_PER_MIB = 1024


def process_memory_mib(pid: int) -> dict[str, float] | None:
    """``rss`` (VmRSS) and ``peak`` (VmHWM) of ``pid`` in MiB, from /proc/<pid>/status.

    None where there is no /proc (the bench reports "-" rather than depend on psutil).
    """
    try:
        status = Path(f"/proc/{pid}/status").read_text(encoding="ascii")
    except OSError:
        return None
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    # The kernel reports both as "<n> kB".
    return {
        name: int(fields[key].split()[0]) / KIB_PER_MIB
        for name, key in (("rss", "VmRSS"), ("peak", "VmHWM"))
    }


def process_tree_memory_mib(pid: int) -> dict[str, float] | None:
    """``process_memory_mib`` summed over ``pid`` and its children (a server's workers)."""
    own = process_memory_mib(pid)
    if own is None:
        return None
    parts = [own, *(process_memory_mib(child) for child in children(pid))]
    known = [part for part in parts if part is not None]
    return {name: sum(part[name] for part in known) for name in ("rss", "peak")}


async def database_bytes(db: Database) -> int:
    """The database's size on disk: pg_database_size, or the SQLite file plus its WAL."""
    if db.dialect == "postgresql":
        async with db.engine.connect() as conn:
            query = text("SELECT pg_database_size(current_database())")
            return int((await conn.execute(query)).scalar_one())
    path = Path(str(db.engine.url.database))
    files = [path, path.with_name(path.name + "-wal")]
    return sum(f.stat().st_size for f in files if f.exists())


async def count_memories(db: Database) -> int:
    """Memories in the whole database, every user's."""
    async with db.engine.connect() as conn:
        return int((await conn.execute(select(func.count(UserMemory.id)))).scalar_one())
