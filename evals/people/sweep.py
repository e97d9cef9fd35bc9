"""``python -m evals.people.sweep``: choose recall's constants on the fit part.

Writes every fit person in every mode once (through the composition root, embedded by
the backfill job), then answers the questions untracked under each configuration of a
grid of settings overrides, and prints hit@1, filler share, unrelated results per
no-answer question and (``r``) the ranking's hit@1 at ``min_confidence`` 0 per mode, and
their mean. Only the fit part is ever read here.

    python -m evals.people.sweep --grid '{"recall_min_confidence": [0.3, 0.45]}'

Overrides reach recall's settings only. The embeddings are built once, from the
environment, before the stores are written: an ``EMBEDDING_*`` setting (the model, turn
context, the source's cosine floor) is swept by running the tool again with it set there.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import shutil
import sys
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from evals.people.data import load, people_files, split
from evals.people.run import MODES, TOP_K, StepClock, Store, write_store
from services.composition import Services
from services.core.schema import migrate
from services.core.settings import Settings
from services.embeddings.vectors import Vector
from services.recall.tracked import recall_and_track


def _memo_queries(services: Services) -> None:
    """Embed each question once across configurations (queries only)."""
    embeddings = services.embeddings
    if embeddings is None:
        return
    plain = embeddings.embed
    memo: dict[str, Vector] = {}

    async def embed(
        texts: Sequence[str], *, query: bool = False, seconds: float | None = None
    ) -> list[Vector]:
        if not query:
            return await plain(texts, query=query, seconds=seconds)
        missing = [t for t in texts if t not in memo]
        if missing:
            for t, v in zip(missing, await plain(missing, query=True), strict=True):
                memo[t] = v
        return [memo[t] for t in texts]

    embeddings.embed = embed  # type: ignore[method-assign]


SCALED: dict[str, str] = {
    "semantic_weight": "semantic",
    "lexical_weight": "lexical",
    "cross_lingual_weight": "cross_lingual",
    "continuity_weight": "continuity",
    "recency_weight": "recency",
    "importance_weight": "importance",
}


def _expanded(settings: Settings, overrides: dict[str, Any]) -> dict[str, Any]:
    """Settings overrides, with ``semantic_weight`` (and the like) set in every query
    type's weights, and ``floor`` as both confidence floors."""
    plain = {k: v for k, v in overrides.items() if k not in SCALED and k != "floor"}
    if "floor" in overrides:  # one confidence floor for statements and turns alike
        plain["recall_min_confidence"] = overrides["floor"]
        plain["recall_min_confidence_dialogue"] = overrides["floor"]
    signals = {SCALED[k]: v for k, v in overrides.items() if k in SCALED}
    if signals:
        for name in type(settings).model_fields:
            if name.startswith("recall_weights_"):
                weights = getattr(settings, name)
                plain[name] = weights.model_copy(update=signals)
    return plain


async def _score(
    services: Services, stores: list[Store], overrides: dict[str, Any]
) -> dict[str, Any]:
    settings = services.settings.model_copy(update=_expanded(services.settings, overrides))
    view = Services.__new__(Services)
    view.__dict__.update(services.__dict__)
    view.settings = settings
    out: dict[str, Any] = {}
    for mode in MODES:
        hit = n_ans = filler = returned = un_no = n_no = ranked = 0
        for store in (s for s in stores if s.mode == mode):
            for q in store.person.questions:
                if q.answerable:
                    first = await recall_and_track(
                        view.db,
                        view.recall,
                        store.user_id,
                        q.text,
                        1,
                        track=False,
                        min_confidence=0.0,
                    )
                    ranked += bool(first) and bool(
                        store.turns_of.get(first[0].memory.id, set()) & q.answers
                    )
                hits = await recall_and_track(
                    view.db, view.recall, store.user_id, q.text, TOP_K, track=False
                )
                turns = [store.turns_of.get(h.memory.id, set()) for h in hits]
                returned += len(hits)
                bad = sum(not (t & q.acceptable) for t in turns)
                filler += bad
                if q.answerable:
                    n_ans += 1
                    hit += bool(turns) and bool(turns[0] & q.answers)
                else:
                    n_no += 1
                    un_no += bad
        out[mode] = (hit / n_ans, filler / max(returned, 1), un_no / max(n_no, 1), ranked / n_ans)
    return out


async def main_async(args: argparse.Namespace) -> None:
    grid: dict[str, list[Any]] = json.loads(args.grid)
    tmp = Path(tempfile.mkdtemp(prefix="jarvis-sweep-"))
    url = f"sqlite+aiosqlite:///{(tmp / 'sweep.db').as_posix()}"
    settings = Settings(
        database_url=url, embedding_provider=args.embedding, scheduler_enabled=False
    )
    clock = StepClock()
    services = Services.from_settings(settings, clock=clock)
    try:
        await migrate(url)
        if services.embeddings is not None:
            await services.embeddings.warm()
        _memo_queries(services)
        fit = set(split()["fit"])
        people = [load(p) for p in people_files() if p.stem in fit]
        prefix = f"sweep-{uuid.uuid4().hex[:6]}-"
        stores = [await write_store(services, clock, p, m, prefix) for p in people for m in MODES]
        clock.now = max(p.now for p in people)
        keys = list(grid)
        for values in itertools.product(*(grid[k] for k in keys)):
            overrides = dict(zip(keys, values, strict=True))
            result = await _score(services, stores, overrides)
            mean = [sum(result[m][i] for m in MODES) / len(MODES) for i in range(4)]
            cells = "  ".join(
                f"{m[:5]} {h:.3f}/{f:.3f}/{u:.2f}/r{r:.3f}" for m, (h, f, u, r) in result.items()
            )
            means = f"{mean[0]:.3f}/{mean[1]:.3f}/{mean[2]:.2f}/r{mean[3]:.3f}"
            sys.stdout.write(f"{json.dumps(overrides)}  mean {means}  {cells}\n")
            sys.stdout.flush()
    finally:
        await services.db.dispose()
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.people.sweep")
    p.add_argument("--embedding", choices=("none", "local"), default="local")
    p.add_argument("--grid", default="{}", help="JSON: setting name → values to try")
    asyncio.run(main_async(p.parse_args(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
