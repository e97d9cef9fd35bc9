"""``python -m bench.hammer``: every kind of write and tracked recalls on one user at once.

The benchmark's HTTP load spreads its requests over several tenants and sends only
recalls and adds, so two transactions of one user rarely overlap; a deadlock between
them showed up twice in eight scratch load windows and never in the bench.
This loads one bench tenant into a scratch database of its own and runs ``--tasks``
concurrent tasks on that one user for ``--seconds``, each drawing its next operation
from ``MIX``: adds, tracked recalls (as a chat turn sends them), edits of a memory's
content, deletes, explicit links, supersedes and restores. Meanwhile the rescoring job
runs over the whole database in small batches, and a reindex over the user, each again
and again. PostgreSQL is ``$BENCH_DATABASE_URL``'s server, or the local one, as for
``python -m bench``.

It counts what each operation did. A refusal the API would answer with a 4xx (the
memory was deleted meanwhile, an edit to content another memory holds) is an outcome;
anything else, such as PostgreSQL's ``deadlock detected``, is an error. Afterwards it
checks that the user's counts still agree with the rows they count (bench/consistency.py).
It prints the counts and exits 1 on any error or inconsistency. Earlier sessions ran
this as a scratch script; the numbers in their closing notes came from it.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from sqlalchemy.ext.asyncio import AsyncSession

from bench.config import NOW, BenchClock
from bench.consistency import inconsistencies
from bench.data import Generator
from bench.runner import DEFAULT_SEED
from bench.scratch import ScratchTenant, scratch_tenant
from services.core.errors import DomainError
from services.recall.recall_service import RecallService
from services.recall.tracked import recall_and_track
from services.remembering.memory_service import MemoryChanges, MemoryService, NewMemory
from services.remembering.reindex import reindex
from services.scoring.jobs import run_rescore
from services.scoring.rescoring import RescoringService

# Relative weights of the operations each task draws.
MIX = {
    "add": 40,
    "recall": 40,
    "edit": 6,
    "delete": 5,
    "link": 5,
    "supersede": 2,
    "restore": 2,
}
TOP_K = 10
RESCORE_BATCH = 500


@dataclass
class Tally:
    """Operations done, refused (a 4xx outcome) and failed, by kind."""

    done: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    samples: list[str] = field(default_factory=list)
    jobs: Counter[str] = field(default_factory=Counter)  # runs of the background jobs
    # Rows breaking each check of bench/consistency.py afterwards (only those broken).
    inconsistent: dict[str, int] = field(default_factory=dict)

    def error(self, kind: str, exc: BaseException) -> None:
        what = f"{kind}: {type(exc).__name__}"
        code = getattr(getattr(exc, "orig", None), "sqlstate", None)
        self.errors[f"{what} {code}" if code else what] += 1
        if len(self.samples) < 5:
            self.samples.append(f"{what}: {str(exc).splitlines()[0][:200]}")


class Hammer:
    """The operations, all on the scratch tenant's one user."""

    def __init__(self, scratch: ScratchTenant, low: int, high: int) -> None:
        self.scratch = scratch
        self.clock = BenchClock(NOW)
        self.services = scratch.services.at(self.clock)
        self.low, self.high = low, high
        self.tally = Tally()
        self.superseded: list[int] = []

    def memories(self, session: AsyncSession) -> MemoryService:
        return self.services.memories(session)

    def recalls(self, session: AsyncSession) -> RecallService:
        return self.services.recall(session)

    def some_id(self, rng: random.Random) -> int:
        return rng.randint(self.low, self.high)

    async def add(self, rng: random.Random, gen: Generator) -> None:
        content, memory_type = gen.text()
        async with self.scratch.db.unit_of_work() as session:
            stored = await self.memories(session).add(
                self.scratch.user, NewMemory(content=content, memory_type=memory_type)
            )
        self.high = max(self.high, stored.memory.id)

    async def recall(self, rng: random.Random, gen: Generator) -> None:
        await recall_and_track(self.scratch.db, self.recalls, self.scratch.user, gen.query(), TOP_K)

    async def edit(self, rng: random.Random, gen: Generator) -> None:
        content, _ = gen.text()
        async with self.scratch.db.unit_of_work() as session:
            await self.memories(session).update(
                self.scratch.user, self.some_id(rng), MemoryChanges(content=content)
            )

    async def delete(self, rng: random.Random, gen: Generator) -> None:
        async with self.scratch.db.unit_of_work() as session:
            await self.memories(session).delete(self.scratch.user, self.some_id(rng))

    async def link(self, rng: random.Random, gen: Generator) -> None:
        first, second = self.some_id(rng), self.some_id(rng)
        if first == second:
            second = first + 1
        async with self.scratch.db.unit_of_work() as session:
            await self.memories(session).link(self.scratch.user, first, second)

    async def supersede(self, rng: random.Random, gen: Generator) -> None:
        older, newer = sorted((self.some_id(rng), self.some_id(rng)))
        async with self.scratch.db.unit_of_work() as session:
            await self.memories(session).supersede(self.scratch.user, older, newer)
        self.superseded.append(older)

    async def restore(self, rng: random.Random, gen: Generator) -> None:
        # One this run superseded, when there is one (a random memory rarely is).
        memory_id = self.superseded.pop() if self.superseded else self.some_id(rng)
        async with self.scratch.db.unit_of_work() as session:
            await self.memories(session).restore(self.scratch.user, memory_id)

    async def task(self, seed: int, deadline: float) -> None:
        rng, gen = random.Random(seed), Generator(seed)
        kinds, weights = list(MIX), list(MIX.values())
        operations: dict[str, Callable[[random.Random, Generator], Awaitable[None]]] = {
            "add": self.add,
            "recall": self.recall,
            "edit": self.edit,
            "delete": self.delete,
            "link": self.link,
            "supersede": self.supersede,
            "restore": self.restore,
        }
        while time.monotonic() < deadline:
            kind = rng.choices(kinds, weights)[0]
            try:
                await operations[kind](rng, gen)
            except DomainError:
                self.tally.refused[kind] += 1
            except Exception as exc:  # every other failure is what this counts
                self.tally.error(kind, exc)
            else:
                self.tally.done[kind] += 1

    async def rescoring(self, deadline: float) -> None:
        """The rescoring job over the whole database, one run after another."""
        settings = self.scratch.settings.model_copy(update={"rescore_batch_size": RESCORE_BATCH})
        while time.monotonic() < deadline:
            try:
                run = await run_rescore(self.scratch.db, settings, self.clock, trigger="bench")
            except Exception as exc:
                self.tally.error("rescore", exc)
            else:
                self.tally.jobs[f"rescore {run.status}"] += 1

    async def reindexing(self, deadline: float) -> None:
        """A reindex of the user, one after another (the last may end after the deadline)."""
        while time.monotonic() < deadline:
            try:
                await reindex(self.scratch.db, self.scratch.analyzer, self.scratch.user)
            except Exception as exc:
                self.tally.error("reindex", exc)
            else:
                self.tally.jobs["reindex"] += 1


async def hammer(
    backend: str, size: int, tasks: int, seconds: float, seed: int, pg_server: str | None = None
) -> Tally:
    """Load the tenant, hammer it, return the tally."""
    async with scratch_tenant(backend, size, seed, pg_server) as scratch:
        async with scratch.db.reader() as session:
            bounds = await RescoringService(session, scratch.settings).id_bounds(scratch.user)
        assert bounds is not None  # the tenant is loaded
        run = Hammer(scratch, *bounds)
        deadline = time.monotonic() + seconds
        jobs = [run.rescoring(deadline), run.reindexing(deadline)]
        await asyncio.gather(*jobs, *(run.task(seed + i, deadline) for i in range(tasks)))
        async with scratch.db.reader() as session:
            run.tally.inconsistent = await inconsistencies(session, scratch.user, scratch.settings)
        return run.tally


def render(tally: Tally, seconds: float) -> str:
    """The counts, one line per kind."""
    lines = [f"{'operation':<10}{'done':>8}{'refused':>9}{'errors':>8}"]
    for kind in MIX:
        failed = sum(n for what, n in tally.errors.items() if what.startswith(f"{kind}:"))
        lines.append(f"{kind:<10}{tally.done[kind]:>8}{tally.refused[kind]:>9}{failed:>8}")
    total = sum(tally.done.values())
    lines.append(f"{total} operations done in {seconds:.0f} s ({total / seconds:.0f}/s)")
    lines.append("jobs alongside: " + ", ".join(f"{k} {v}" for k, v in tally.jobs.items()))
    lines.append(f"errors: {sum(tally.errors.values())}")
    lines += [f"  {what}: {n}" for what, n in tally.errors.most_common()]
    lines += [f"  e.g. {sample}" for sample in tally.samples]
    lines.append(f"inconsistent rows afterwards: {sum(tally.inconsistent.values())}")
    lines += [f"  {check}: {n}" for check, n in tally.inconsistent.items()]
    return "\n".join(lines)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(prog="python -m bench.hammer", description=__doc__)
    parser.add_argument("--backend", choices=["postgresql", "sqlite"], default="postgresql")
    parser.add_argument("--tenant", type=int, default=10_000, help="memories of the user")
    parser.add_argument("--tasks", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the hammer; exit status 1 when any operation failed."""
    args = parse_args(argv)
    tally = asyncio.run(hammer(args.backend, args.tenant, args.tasks, args.seconds, args.seed))
    print(render(tally, args.seconds))
    return 1 if tally.errors or tally.inconsistent else 0


if __name__ == "__main__":
    sys.exit(main())
