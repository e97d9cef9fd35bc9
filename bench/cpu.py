"""CPU time spent during a load window, per party, from /proc (Linux).

The HTTP load's ratio (recall p50 / healthz p50) is, under a closed loop of busy
clients, about the ratio of what a request of each kind costs the machine. This says
who pays: the server's processes (its workers included), the PostgreSQL server's
processes on this machine (every backend: nothing else should run during a
measurement), and the load generator (this process). SQLite's work runs inside the
server's process. Where /proc is missing, or PostgreSQL runs elsewhere, the party is
left out rather than guessed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PROC = Path("/proc")


def process_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds of ``pid`` so far (its threads included)."""
    try:
        stat = (PROC / str(pid) / "stat").read_text(encoding="ascii")
    except OSError:
        return None
    # The command name may hold spaces and parentheses: the fields start after the last ")".
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_SECOND  # utime, stime


def process_cpu_ns(pid: int) -> int | None:
    """Nanoseconds ``pid``'s live threads have run so far, from each thread's
    ``/proc/<pid>/task/<tid>/schedstat`` (the scheduler's own count, not clock ticks:
    ``stat`` counts in 10 ms ticks, too coarse for one request). A thread that has
    exited is missing with its time; None without /proc."""
    total, found = 0, False
    try:
        tasks = list((PROC / str(pid) / "task").iterdir())
    except OSError:
        return None
    for task in tasks:
        try:
            total += int((task / "schedstat").read_text(encoding="ascii").split()[0])
            found = True
        except (OSError, IndexError, ValueError):
            continue  # it exited meanwhile
    return total if found else None


def children(pid: int) -> list[int]:
    """The direct children of ``pid``."""
    try:
        listed = (PROC / str(pid) / "task" / str(pid) / "children").read_text(encoding="ascii")
    except OSError:
        return []
    return [int(child) for child in listed.split()]


def postgres_pids() -> list[int]:
    """Every process of this machine named ``postgres``."""
    found = []
    for entry in PROC.glob("[0-9]*"):
        try:
            if (entry / "comm").read_text(encoding="ascii").strip() == "postgres":
                found.append(int(entry.name))
        except OSError:
            continue  # it exited meanwhile
    return found


@dataclass(frozen=True)
class CpuSnapshot:
    """CPU seconds so far: the server's processes, each PostgreSQL process, this one."""

    server: float
    database: dict[int, float]
    generator: float


class CpuSampler:
    """Snapshots of one server's CPU time and of what serves it."""

    def __init__(self, server_pid: int, *, database: bool) -> None:
        self.server_pid = server_pid
        self.database = database  # False: the database works inside the server (SQLite)

    def snapshot(self) -> CpuSnapshot | None:
        """Now; None without /proc."""
        server = [process_cpu_seconds(p) for p in [self.server_pid, *children(self.server_pid)]]
        generator = process_cpu_seconds(os.getpid())
        if server[0] is None or generator is None:
            return None
        database: dict[int, float] = {}
        if self.database:
            for pid in postgres_pids():
                seconds = process_cpu_seconds(pid)
                if seconds is not None:
                    database[pid] = seconds
        return CpuSnapshot(sum(s for s in server if s is not None), database, generator)

    def spent(self, before: CpuSnapshot, after: CpuSnapshot) -> dict[str, float]:
        """CPU seconds per party between two snapshots. A backend that started meanwhile
        (a new pooled connection) counts from 0; one that ended is lost with its time."""
        spent = {
            "server": after.server - before.server,
            "generator": after.generator - before.generator,
        }
        if self.database and after.database:
            spent["database"] = sum(
                seconds - before.database.get(pid, 0.0) for pid, seconds in after.database.items()
            )
        return spent
