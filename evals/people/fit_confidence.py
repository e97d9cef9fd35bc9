"""``python -m evals.people.fit_confidence``: fit recall's confidence on the fit part.

Every fit person is written in every mode (through the composition root, embedded by the
backfill job); every question is asked untracked with ``top_k`` 10 and ``min_confidence``
0; each hit becomes one row: its features (``services.recall.confidence.features``) and
whether it is acceptable for its question. The logistic regression is the one of
``evals.confidence_fit`` (L2 penalty, no negative coefficient).

Cross-validated by person: the fit is repeated leaving each fit person out, and the
held-out person's log loss and each coefficient's range across the folds are printed
beside the constants fitted on every fit person (which go into
services/recall/confidence.py). The test part is never read.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import shutil
import sys
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path

from evals.confidence_fit import Row, calibration, fit
from evals.people.data import load, people_files, split
from evals.people.run import MODES, StepClock, Store, write_store
from services.composition import Services
from services.core.schema import migrate
from services.core.settings import Settings
from services.recall.confidence import FEATURES, features, logistic
from services.recall.ranking.understanding import understand
from services.recall.tracked import recall_and_track

TOP_K = 10


async def rows_of(services: Services, clock: StepClock, store: Store) -> list[Row]:
    """One row per hit of every question of ``store``; the row's source is the person."""
    rows = []
    for q in store.person.questions:
        hits = await recall_and_track(
            services.db,
            services.recall,
            store.user_id,
            q.text,
            TOP_K,
            track=False,
            min_confidence=0.0,
        )
        pure = understand(q.text, services.analyzer, clock()).pure_time
        for h in hits:
            if h.evidence is None:
                continue
            good = bool(store.turns_of.get(h.memory.id, set()) & q.acceptable)
            rows.append(Row(features(h.evidence, pure), good, store.person.person))
    return rows


def _one_source(rows: Sequence[Row]) -> list[Row]:
    return [Row(r.x, r.y, "people") for r in rows]


def log_loss(rows: Sequence[Row], beta: Sequence[float]) -> float:
    total = 0.0
    for r in rows:
        p = logistic(sum(b * v for b, v in zip(beta, (1.0, *r.x), strict=True)))
        p = min(max(p, 1e-9), 1 - 1e-9)
        total -= math.log(p) if r.y else math.log(1 - p)
    return total / max(1, len(rows))


async def main_async(embedding: str) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="jarvis-fitconf-"))
    url = f"sqlite+aiosqlite:///{(tmp / 'fit.db').as_posix()}"
    settings = Settings(database_url=url, embedding_provider=embedding, scheduler_enabled=False)
    clock = StepClock()
    services = Services.from_settings(settings, clock=clock)
    try:
        await migrate(url)
        if services.embeddings is not None:
            await services.embeddings.warm()
        fit_people = set(split()["fit"])
        people = [load(p) for p in people_files() if p.stem in fit_people]
        prefix = f"fitconf-{uuid.uuid4().hex[:6]}-"
        rows: list[Row] = []
        for person in people:
            for mode in MODES:
                store = await write_store(services, clock, person, mode, prefix)
                clock.now = person.now
                rows += await rows_of(services, clock, store)
        report(rows)
    finally:
        await services.db.dispose()
        shutil.rmtree(tmp, ignore_errors=True)


def report(rows: Sequence[Row]) -> None:
    out = sys.stdout.write
    everyone = fit(_one_source(rows))
    out(f"rows {len(rows)}, acceptable {sum(r.y for r in rows)}\n")
    out("fitted on every fit person:\n")
    out(f"  Fitted({everyone[0]:.3f}, ({', '.join(f'{b:.3f}' for b in everyone[1:])}))\n")
    folds = []
    for person in sorted({r.source for r in rows}):
        train = [r for r in rows if r.source != person]
        held = [r for r in rows if r.source == person]
        beta = fit(_one_source(train))
        folds.append(beta)
        out(
            f"  without {person}: held-out log loss {log_loss(held, beta):.3f} "
            f"(fitted on all: {log_loss(held, everyone):.3f})\n"
        )
    out("coefficient ranges across the folds:\n")
    out(f"  intercept {min(f[0] for f in folds):.3f} .. {max(f[0] for f in folds):.3f}\n")
    for i, name in enumerate(FEATURES, start=1):
        out(f"  {name:16s} {min(f[i] for f in folds):.3f} .. {max(f[i] for f in folds):.3f}\n")
    out("calibration (mean confidence / share acceptable / hits):\n")
    for p, share, n in calibration(rows, everyone):
        out(f"  {p:.2f} / {share:.2f} / {n}\n")


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.people.fit_confidence")
    p.add_argument("--embedding", choices=("none", "local"), default="local")
    asyncio.run(main_async(p.parse_args(argv).embedding))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
