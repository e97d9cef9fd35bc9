"""``python -m evals.people``: recall on the people written as chat, three write modes.

    python -m evals.people [--embedding local|none] [--part fit|test|all]
                           [--json FILE] [--markdown FILE] [--dump FILE]

Runs on a temporary SQLite file migrated to head, with the service built by the
composition root from the environment's settings (``--embedding`` sets
EMBEDDING_PROVIDER; ``make run`` serves ``local``). ``--dump`` writes, for tuning on the
fit part, every question's candidates with their evidence and the store's similarities.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import shutil
import sys
import tempfile
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evals.people.data import PEOPLE_DIR, Person, load, people_files, split
from evals.people.report import markdown, summarise
from evals.people.run import (
    MODES,
    TOP_K,
    Mode,
    Outcome,
    StepClock,
    ask,
    bm25_ranking,
    dense_ranking,
    first_is_answer,
    plain_vectors,
    user_texts,
    write_store,
)
from evals.people.tuning import dump_rows
from services.composition import Services
from services.core.schema import migrate
from services.core.settings import Settings
from services.embeddings.vectors import Vector


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m evals.people")
    p.add_argument("--embedding", choices=("none", "local"), default="local")
    p.add_argument("--part", choices=("fit", "test", "all"), default="all")
    p.add_argument("--people", default="", help="comma-separated subset (development only)")
    p.add_argument("--modes", default=",".join(MODES))
    p.add_argument("--dir", type=Path, default=PEOPLE_DIR, help="the people's folder")
    p.add_argument("--json", type=Path)
    p.add_argument("--markdown", type=Path)
    p.add_argument("--dump", type=Path, help="candidate rows for tuning (JSON lines)")
    return p.parse_args(argv)


def chosen(args: argparse.Namespace) -> list[tuple[str, Person]]:
    parts = split(args.dir)
    part_of = {
        name: part for part, names in parts.items() if part in ("fit", "test") for name in names
    }
    wanted = set(filter(None, args.people.split(",")))
    people = []
    for path in people_files(args.dir):
        name = path.stem
        part = part_of.get(name)
        if part is None:
            raise SystemExit(f"{name} is in neither part of split.json")
        if args.part != "all" and part != args.part:
            continue
        if wanted and name not in wanted:
            continue
        people.append((part, load(path)))
    return people


async def evaluate(args: argparse.Namespace) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(prefix="jarvis-people-"))
    url = f"sqlite+aiosqlite:///{(tmp / 'people.db').as_posix()}"
    settings = Settings(
        database_url=url, embedding_provider=args.embedding, scheduler_enabled=False
    )
    clock = StepClock()
    services = Services.from_settings(settings, clock=clock)
    dump = args.dump.open("w", encoding="utf-8") if args.dump else None
    try:
        await migrate(url)
        await asyncio.to_thread(services.analyzer.warm)
        if services.embeddings is not None and not await services.embeddings.warm():
            raise SystemExit("the embedding model cannot be loaded")
        prefix = f"people-{uuid.uuid4().hex[:6]}-"
        rows: list[dict[str, Any]] = []
        for part, person in chosen(args):
            plain: dict[str, Any] = {}
            modes: list[Mode] = [m for m in MODES if m in args.modes.split(",")]
            for mode in modes:
                outcomes = await _person(services, clock, person, mode, prefix, plain, dump)
                rows.extend(_row(part, o) for o in outcomes)
                sys.stderr.write(f"{part} {person.person} {mode}: done\n")
        people = chosen(args)
        meta = {
            "embedding": args.embedding,
            "command": f"python -m evals.people --embedding {args.embedding}"
            + (f" --part {args.part}" if args.part != "all" else ""),
            "date": datetime.now(UTC).date().isoformat(),
            "parts": {
                part: sorted(p.person for pt, p in people if pt == part) for part in ("test", "fit")
            },
            "top_k": TOP_K,
            "context_turns": services.settings.embedding_context_turns,
        }
        return {"settings": meta, "rows": rows}
    finally:
        if dump is not None:
            dump.close()
        await services.db.dispose()
        shutil.rmtree(tmp, ignore_errors=True)


async def _person(
    services: Services,
    clock: StepClock,
    person: Person,
    mode: Mode,
    prefix: str,
    plain: dict[str, Vector],
    dump: Any,
) -> list[Outcome]:
    store = await write_store(services, clock, person, mode, prefix)
    texts = user_texts(store)
    by_text: dict[int, Vector] = {}
    if services.embeddings is not None:
        missing = {mid: t for mid, t in texts.items() if t not in plain}
        if missing:
            for mid, v in (await plain_vectors(services, missing)).items():
                plain[missing[mid]] = v
        by_text = {mid: plain[t] for mid, t in texts.items()}
    outcomes = []
    for i, q in enumerate(person.questions):
        clock.now = person.now.replace(second=0) + _minutes(i)
        if dump is not None:
            await dump_rows(services, store, q, dump)
        o = await ask(services, clock, store, q)
        bm25 = bm25_ranking(services, texts, q.text)
        dense: bool | None = None  # no model offline: no dense baseline
        if by_text:
            (qv,) = await services.embeddings.embed([q.text], query=True)  # type: ignore[union-attr]
            dense = first_is_answer(store, q, dense_ranking(qv, by_text))
        outcomes.append(
            Outcome(
                o.person,
                o.mode,
                o.question,
                o.returned,
                o.counts_to_filler,
                first_is_answer(store, q, bm25),
                dense,
                o.ranked_first,
            )
        )
    return outcomes


def _minutes(i: int) -> Any:
    from datetime import timedelta

    return timedelta(minutes=i)


def _row(part: str, o: Outcome) -> dict[str, Any]:
    q = o.question
    return {
        "part": part,
        "person": o.person,
        "mode": o.mode,
        "question": q.id,
        "text": q.text,
        "kind": q.kind,
        "paraphrase": q.paraphrase,
        "cross_lingual": q.cross_lingual,
        "corrected": q.corrected,
        "ignored_suggestion": q.ignored_suggestion,
        "hit_at_1": o.hit_at_1,
        "returned": len(o.returned),
        "filler": o.filler,
        "answered": any(r.answer for r in o.returned),
        "counts_to_filler": o.counts_to_filler,
        "bm25_first": o.bm25_first,
        "dense_first": o.dense_first,
        "ranked_first": o.ranked_first,
        "results": [
            {
                "turns": sorted(r.turns),
                "answer": r.answer,
                "acceptable": r.acceptable,
                "confidence": r.confidence,
            }
            for r in o.returned
        ],
    }


def main(argv: list[str]) -> int:
    logging.basicConfig(level=logging.WARNING)
    args = parse(argv)
    result = asyncio.run(evaluate(args))
    report = summarise(result["rows"], result["settings"])
    if args.json:
        args.json.write_text(
            json.dumps({**report, "rows": result["rows"]}, ensure_ascii=False, indent=1) + "\n"
        )
    page = markdown(report)
    if args.markdown:
        args.markdown.write_text(page)
    sys.stdout.write(page)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
