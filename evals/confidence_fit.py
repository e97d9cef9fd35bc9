"""Fit recall's confidence (services/recall/confidence.py) on the development data.

    python -m evals.confidence_fit [--locomo PATH] [--embedding local]

Every scenario question (evals/scenarios) and every LoCoMo development
question is asked once, untracked, with ``top_k`` 10 and ``min_confidence`` 0, on a fresh
temporary SQLite database; each returned hit becomes one row: its features
(``services.recall.confidence.features``) and whether it is acceptable (scenarios: an
acceptable memory for its question; LoCoMo: a memory holding an evidence turn). The two
data sets weigh the same in total. A logistic regression with an L2 penalty of
``PENALTY`` on the coefficients (not the intercepts) is fitted by Newton's method.

Each data set has an intercept of its own: LoCoMo labels only the evidence turns, so a
turn a person would accept (the one before the evidence, another on the same subject)
counts as wrong there, and its rows say less about how *often* a hit is acceptable than
about which evidence makes it *more* likely. So both data sets shape the coefficients,
and the scenarios' intercept, fitted on labels of what is acceptable, is the one recall
uses. The constants it prints go into services/recall/confidence.py, and the tables
beside them say how well they are calibrated (mean confidence against the share
acceptable, by tenth of confidence; LoCoMo's with its own intercept).

Without a semantic source (the offline default) the fit prints ``OFFLINE``; with
``--embedding local`` the memories are embedded by the backfill job (as the evals and
the server do), recall asks the bundled model, and it prints ``WITH_SEMANTIC``. It also
prints, for the hits whose only evidence is a similarity, how many were acceptable by
cosine (where services/recall/evidence.py's ``SEMANTIC_FLOOR`` was read from; lower the
floor to see below it). ``--rows`` writes the rows, ``--from-rows`` refits them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final

from evals.bilingual_data import cross_lingual_set
from evals.command import migrate
from evals.embedding_step import embed_user
from evals.locomo import _ingest as ingest_locomo
from evals.locomo import load_locomo
from evals.scenario_data import SCENARIO_DIR, load_people
from evals.scenario_run import StepClock
from evals.scenario_run import _ingest as ingest_person
from services.composition import Services
from services.core.db import Database, build_engine
from services.core.settings import Settings
from services.recall.confidence import FEATURES, features, logistic
from services.recall.evidence import SEMANTIC_UNRELATED
from services.recall.ranking.understanding import understand
from services.recall.recall_service import RecallHit
from services.remembering.memory_service import NewMemory
from services.text.analysis import TextAnalyzer

PENALTY: Final = 1.0
TOP_K: Final = 10
# The Makefile's DATASETS default (docs/evaluation.md: where the data comes from).
LOCOMO_DEV: Final = Path("../shared/datasets/locomo/locomo_dev.json")


@dataclass(frozen=True)
class Row:
    """One returned hit: its features, whether it was acceptable, and its weight."""

    x: tuple[float, ...]
    y: bool
    source: str


def _rows(hits: Sequence[RecallHit], good: set[int], time_only: bool, source: str) -> list[Row]:
    return [
        Row(features(h.evidence, time_only), h.memory.id in good, source)
        for h in hits
        if h.evidence is not None
    ]


@dataclass(frozen=True)
class Setup:
    """What every question of the fit is asked with."""

    services: Services

    async def embed(self, clock: StepClock, user: str) -> None:
        """As the server's backfill job would, once a user's memories are written."""
        services = self.services
        if services.embeddings is not None:
            await embed_user(services.db, services.settings, clock, services.embeddings, user)


async def _ask(setup: Setup, clock: StepClock, user: str, q: str) -> tuple[list[RecallHit], bool]:
    timed = setup.services.at(clock)
    async with timed.db.unit_of_work() as session:
        service = timed.recall(session)
        hits = await service.recall_memories(user, q, TOP_K, track=False, min_confidence=0.0)
    return hits, understand(q, timed.analyzer, clock()).pure_time


async def scenario_rows(setup: Setup) -> list[Row]:
    """Rows of every scenario question."""
    rows: list[Row] = []
    for person in load_people(SCENARIO_DIR):
        clock = StepClock(person.now)
        user = f"fit-{person.id}"
        by_memory = await ingest_person(setup.services.at(clock), clock, user, person)
        await setup.embed(clock, user)
        for index, question in enumerate(person.questions):
            clock.now = person.now + timedelta(minutes=index)
            good = {mid for mid, ids in by_memory.items() if ids & question.acceptable}
            hits, pure = await _ask(setup, clock, user, question.text)
            rows += _rows(hits, good, pure, "scenarios")
    return rows


async def cross_lingual_rows(setup: Setup) -> list[Row]:
    """Rows of our own cross-lingual questions (evals/bilingual), counted
    with the scenarios: they too label what a person would accept (the one statement
    that answers), and the scenarios alone hold too few questions across languages to
    weigh a similarity in the other language."""
    rows: list[Row] = []
    (history, probes), *_ = cross_lingual_set().asked
    clock = StepClock(history.now)
    user = "fit-cross-lingual"
    items = [NewMemory(content=s.content, created_at=s.created_at) for s in history.statements]
    timed = setup.services.at(clock)
    async with timed.db.unit_of_work() as session:
        stored = await timed.memories(session).add_many(user, items)
    keys = {r.memory.id: s.key for s, r in zip(history.statements, stored, strict=True)}
    await setup.embed(clock, user)
    for probe in probes:
        good = {mid for mid, key in keys.items() if key in probe.evidence}
        hits, pure = await _ask(setup, clock, user, probe.text)
        rows += _rows(hits, good, pure, "scenarios")
    return rows


async def locomo_rows(setup: Setup, path: Path) -> list[Row]:
    """Rows of every LoCoMo development question."""
    rows: list[Row] = []
    clock = StepClock(datetime(2024, 1, 1, tzinfo=UTC))
    for conversation in load_locomo(path):
        user = f"fit-locomo-{conversation.sample_id}"
        by_memory, _ = await ingest_locomo(setup.services.at(clock), user, conversation.turns)
        await setup.embed(clock, user)
        for question in conversation.questions:
            good = {mid for mid, ids in by_memory.items() if ids & set(question.evidence)}
            hits, pure = await _ask(setup, clock, user, question.text)
            rows += _rows(hits, good, pure, "locomo")
    return rows


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """a · x = b by Gaussian elimination with partial pivoting (a is small and SPD)."""
    n = len(b)
    m = [[*row, b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(col + 1, n):
            f = m[r][col] / m[col][col]
            for c in range(col, n + 1):
                m[r][c] -= f * m[col][c]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        x[r] = (m[r][n] - sum(m[r][c] * x[c] for c in range(r + 1, n))) / m[r][r]
    return x


def fit(rows: Sequence[Row], penalty: float = PENALTY, steps: int = 30) -> list[float]:
    """[an intercept per source (in name order), coefficients…] of the weighted,
    L2-penalised logistic regression, every coefficient at least 0.

    Each feature is evidence for the hit: more of it must never make the hit less likely
    (an unconstrained fit gave ``relevance`` -0.29 with the bundled model, where beside
    term coverage it adds nothing, and that cut lexical answers of the MemoryBank English
    questions, hit@1 0.50 -> 0.43). So a coefficient that comes out negative is fixed at
    0 and the rest fitted again, the most negative first, until none is.
    """
    lead = len({r.source for r in rows})
    fixed: set[int] = set()
    while True:
        beta = _fit(rows, penalty, steps, fixed)
        coefficients = {i: b for i, b in enumerate(beta) if i >= lead and i not in fixed}
        worst = min(coefficients, key=lambda i: coefficients[i], default=None)
        if worst is None or coefficients[worst] >= 0:
            return beta
        fixed.add(worst)


def _fit(rows: Sequence[Row], penalty: float, steps: int, fixed: set[int]) -> list[float]:
    """The regression with the coefficients at ``fixed`` positions held at 0."""
    sources = sorted({r.source for r in rows})
    counts = {s: sum(r.source == s for r in rows) for s in sources}
    weight = {s: len(rows) / (len(counts) * n) for s, n in counts.items()}
    lead = len(sources)
    dim = len(FEATURES) + lead
    beta = [0.0] * dim
    for _ in range(steps):
        grad = [0.0] * dim
        hess = [[0.0] * dim for _ in range(dim)]
        for r in rows:
            x = (*(float(r.source == s) for s in sources), *r.x)
            p = logistic(sum(b * v for b, v in zip(beta, x, strict=True)))
            w = weight[r.source]
            for i in range(dim):
                grad[i] += w * (float(r.y) - p) * x[i]
                for j in range(i, dim):
                    hess[i][j] += w * p * (1.0 - p) * x[i] * x[j]
        for i in range(dim):
            for j in range(i):
                hess[i][j] = hess[j][i]
            if i >= lead:
                grad[i] -= penalty * beta[i]
                hess[i][i] += penalty
        for i in fixed:  # held at 0: no step
            grad[i] = 0.0
            hess[i] = [0.0] * dim
            for row in hess:
                row[i] = 0.0
            hess[i][i] = 1.0
        step = _solve(hess, grad)
        beta = [b + s for b, s in zip(beta, step, strict=True)]
        if max(abs(s) for s in step) < 1e-8:
            break
    return beta


def calibration(rows: Sequence[Row], beta: Sequence[float]) -> list[tuple[float, float, int]]:
    """(mean confidence, share acceptable, hits) per tenth of confidence."""
    bins: dict[int, list[tuple[float, bool]]] = {}
    for r in rows:
        p = logistic(sum(b * v for b, v in zip(beta, (1.0, *r.x), strict=True)))
        bins.setdefault(min(int(p * 10), 9), []).append((p, r.y))
    return [
        (sum(p for p, _ in v) / len(v), sum(y for _, y in v) / len(v), len(v))
        for _, v in sorted(bins.items())
    ]


async def collect(locomo: Path | None, embedding: str = "none") -> list[Row]:
    """Every row, from a temporary migrated SQLite database; with ``embedding`` (a
    provider, as ``eval --embedding``) the memories are embedded and recall has its
    semantic source."""
    tmp = Path(tempfile.mkdtemp(prefix="jarvis-fit-"))
    url = f"sqlite+aiosqlite:///{(tmp / 'fit.db').as_posix()}"
    settings = Settings()
    if embedding != "none":
        settings = settings.model_copy(update={"embedding_provider": embedding})
    db = Database(build_engine(url))
    try:
        await migrate(url)
        services = Services(settings, db, TextAnalyzer(settings))
        await asyncio.to_thread(services.analyzer.warm)
        if services.embeddings is not None and not await services.embeddings.warm():
            raise RuntimeError(f"embedding model {settings.embedding_model!r} cannot be loaded")
        setup = Setup(services)
        rows = await scenario_rows(setup)
        rows += await cross_lingual_rows(setup)
        if locomo is not None:
            rows += await locomo_rows(setup, locomo)
        return rows
    finally:
        await db.dispose()
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Collect, fit and print the constants and their calibration."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--locomo", type=Path, default=LOCOMO_DEV, help="LoCoMo dev JSON")
    parser.add_argument("--no-locomo", action="store_true", help="the scenarios alone")
    parser.add_argument(
        "--embedding",
        choices=("none", "local", "openai"),
        default="none",
        help="embed the memories and recall with a semantic source (as eval --embedding)",
    )
    parser.add_argument("--rows", type=Path, help="also write every row here (JSON lines)")
    parser.add_argument(
        "--from-rows", type=Path, nargs="+", help="fit rows written by --rows, asking nothing"
    )
    args = parser.parse_args(argv)
    if args.from_rows:
        rows = [_row(line) for path in args.from_rows for line in path.read_text().splitlines()]
    else:
        rows = asyncio.run(collect(None if args.no_locomo else args.locomo, args.embedding))
    if args.rows is not None:
        args.rows.write_text(
            "".join(json.dumps({"x": r.x, "y": r.y, "source": r.source}) + "\n" for r in rows)
        )
    beta = fit(rows)
    sources = sorted({r.source for r in rows})
    lead = len(sources)
    print("rows: " + ", ".join(f"{s} {sum(r.source == s for r in rows)}" for s in sources))
    for s, b in zip(sources, beta, strict=False):
        print(f"intercept of {s}: {b:.3f}")
    name = "OFFLINE" if args.embedding == "none" else "WITH_SEMANTIC"
    print(
        f"{name}: Final = Fitted({beta[sources.index('scenarios')]:.3f}, ("
        + ", ".join(f"{b:.3f}" for b in beta[lead:])
        + "))"
    )
    print("  " + ", ".join(f"{n} {b:.3f}" for n, b in zip(FEATURES, beta[lead:], strict=True)))
    for i, source in enumerate(sources):
        mine = [beta[i], *beta[lead:]]
        print(f"calibration on {source} (mean confidence, share acceptable, hits):")
        picked = [r for r in rows if r.source == source]
        for mean, share, n in calibration(picked, mine):
            print(f"  {mean:.2f}  {share:.2f}  {n}")
        loss = -sum(
            math.log(max(1e-12, p if r.y else 1.0 - p))
            for r in picked
            for p in [logistic(sum(b * v for b, v in zip(mine, (1.0, *r.x), strict=True)))]
        ) / max(len(picked), 1)
        print(f"  log loss {loss:.4f}")
    print_similarities(rows)
    return 0


def _row(line: str) -> Row:
    found = json.loads(line)
    return Row(tuple(float(v) for v in found["x"]), bool(found["y"]), str(found["source"]))


def print_similarities(rows: Sequence[Row]) -> None:
    """How many hits whose only evidence is a similarity were acceptable, by cosine
    (a twentieth wide): where SEMANTIC_FLOOR is read from."""
    alone = FEATURES.index("semantic_alone")
    across = FEATURES.index("semantic_across")
    for source in sorted({r.source for r in rows}):
        for other, where in ((False, ""), (True, ", the other language than the query's")):
            bins: dict[int, list[int]] = {}
            for r in rows:
                if r.source == source and r.x[alone] > 0 and (r.x[across] > 0) == other:
                    cosine = r.x[alone] + SEMANTIC_UNRELATED
                    bins.setdefault(int(cosine * 20), [0, 0])[r.y] += 1
            if not bins:
                continue
            print(f"similarity alone on {source}{where} (cosine from: acceptable / not):")
            for b, (bad, good) in sorted(bins.items()):
                print(f"  {b / 20:.2f}  {good} / {bad}")


if __name__ == "__main__":
    raise SystemExit(main())
