"""The three scales: which tenants exist, how many repetitions, how big an ingest batch."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Scale:
    """One benchmark size.

    ``tenants`` are the measured users' memory counts. On PostgreSQL, filler users of
    ``filler_tenant`` memories are added until the database holds ``pg_total``
    memories; SQLite gets the measured tenants only. Ingest adds ``ingest_batch``
    statements to the tenant of ``ingest_tenant`` memories (the smallest: an add through
    the service gets slower as the tenant grows, and the largest would make the run
    far longer).

    The HTTP load runs against one server process (the target's figure) and, on
    PostgreSQL, again against ``load_workers`` worker processes
    (``jarvis-memory serve --workers``; SQLite serves one process).

    The embedding flood (bench/flood.py) runs on a database of its own: ``flood_store``
    memories of the measured person, ``flood_notes`` long notes of another.
    """

    name: str
    tenants: tuple[int, ...]
    reps: int
    queries: int
    ingest_batch: int
    pg_total: int = 0
    filler_tenant: int = 10_000
    ingest_tenant: int = 1_000
    rescore_recall_tenant: int = 10_000
    load_clients: int = 64
    load_seconds: float = 30.0
    load_reps: int = 3
    load_workers: int = 2  # the PostgreSQL server's processes in the second HTTP load
    soak_clients: int = 16  # bench/soak.py: the server's RSS over windows of new words
    soak_seconds: float = 20.0
    soak_windows: int = 8
    # bench/flood.py: one person's recall while another floods the embedding engine with
    # long queries and a third's long notes are embedded.
    flood_store: int = 300  # the measured person's memories, embedded first
    flood_recalls: int = 50  # their recalls alone, then under the flood
    flood_notes: int = 120  # the other person's notes of 8,000 characters
    flood_new: int = 5  # the measured person's new memories during the flood
    flood_clients: int = 8  # the flooding client's connections
    flood_vector_wait: float = 600.0  # seconds the new memories may take to get vectors

    def filler(self, backend: str) -> list[int]:
        """Memory counts of the filler tenants for ``backend``."""
        if backend != "postgresql":
            return []
        rest = self.pg_total - sum(self.tenants)
        sizes = [self.filler_tenant] * (max(rest, 0) // self.filler_tenant)
        if rest > sum(sizes):
            sizes.append(rest - sum(sizes))
        return sizes


SCALES = {
    "smoke": Scale(
        "smoke",
        tenants=(1_000,),
        reps=5,
        queries=3,
        ingest_batch=2,
        rescore_recall_tenant=1_000,
        load_clients=8,
        load_seconds=0.5,
        load_reps=1,
        soak_clients=4,
        soak_seconds=0.5,
        soak_windows=2,
        flood_store=30,
        flood_recalls=8,
        flood_notes=6,
        flood_new=2,
        flood_clients=4,
        flood_vector_wait=120.0,
    ),
    "small": Scale(
        "small",
        tenants=(1_000, 10_000),
        reps=5,
        queries=30,
        ingest_batch=1_000,
        load_seconds=10.0,
        soak_seconds=10.0,
    ),
    "full": Scale(
        "full",
        tenants=(1_000, 10_000, 100_000),
        reps=5,
        queries=100,
        ingest_batch=1_000,
        pg_total=1_000_000,
    ),
}


def tenant_name(size: int) -> str:
    """``tenant-1k``, ``tenant-10k``, ``tenant-100k``."""
    return f"tenant-{size // 1000}k" if size % 1000 == 0 else f"tenant-{size}"
