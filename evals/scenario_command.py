"""``python -m evals scenarios``: run the scenarios, print and write the report.

Like ``python -m evals locomo``: a temporary SQLite file migrated with Alembic by default (deleted
afterwards), or ``--database-url`` (already migrated; the run's users get a prefix of
their own, ``scenarios-<run id>-``, and are left in place).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from evals.command import migrate, service_overrides
from evals.report import publish
from evals.scenario_data import SCENARIO_DIR, load_conversations, load_people
from evals.scenario_report import (
    build_scenario_report,
    format_scenario_markdown,
    format_scenario_table,
)
from evals.scenario_run import (
    CONTEXT_BUDGET_TOKENS,
    CONTEXT_PRESERVE_RECENT,
    TOP_K,
    ScenarioRun,
    run_scenarios,
)
from services.composition import Services
from services.core.clock import utcnow
from services.core.db import Database, build_engine
from services.core.errors import InvalidInput
from services.core.health import check_readiness
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer


def add_scenarios_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m evals scenarios``."""
    parser.add_argument(
        "--data", type=Path, default=SCENARIO_DIR, help="the scenarios folder (default: built in)"
    )
    parser.add_argument("--json", type=Path, default=None, help="write every number here")
    parser.add_argument("--markdown", type=Path, default=None, help="write a markdown page")
    parser.add_argument(
        "--note", default=None, help="a line shown at the top of the markdown (e.g. baseline)"
    )
    parser.add_argument(
        "--database-url", default=None, help="a migrated database (default: a temporary SQLite)"
    )
    parser.add_argument(
        "--embedding",
        choices=("none", "local"),
        default="none",
        help="local: recall with EMBEDDING_MODEL's vectors (default the bundled multilingual "
        "model), made by the backfill job after each person's statements",
    )


def shown_path(path: Path) -> str:
    """The folder relative to the working directory when it is inside it (reports are
    committed: no checkout's absolute path in them)."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def folder_sha256(folder: Path) -> str:
    """One hash over the folder's JSON files (names and bytes, in name order)."""
    digest = hashlib.sha256()
    for path in sorted(folder.glob("*.json")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


async def evaluate_scenarios(
    url: str, settings: Settings, data: Path, prefix: str, *, migrate_first: bool
) -> ScenarioRun:
    """Run every scenario of ``data`` on the database at ``url``."""
    people, conversations = load_people(data), load_conversations(data)
    db = Database(
        build_engine(
            url,
            echo=settings.db_echo,
            pool_size=settings.db_pool_size,
            plan_cache_mode=settings.db_plan_cache_mode,
        )
    )
    try:
        if migrate_first:
            await migrate(url)
        readiness = await check_readiness(db)
        if not readiness.ready:
            raise InvalidInput(
                f"database is not at migration head {readiness.head} ({readiness.database}, "
                f"revision {readiness.revision}): run jarvis-memory migrate first"
            )
        services = Services(settings, db, TextAnalyzer(settings))
        await asyncio.to_thread(services.analyzer.warm)
        if services.embeddings is not None and not await services.embeddings.warm():
            raise InvalidInput(f"embedding model {settings.embedding_model!r} cannot be loaded")
        return await run_scenarios(services, people, conversations, prefix)
    finally:
        await db.dispose()


def scenario_meta(
    args: argparse.Namespace, settings: Settings, database: str, prefix: str
) -> dict[str, Any]:
    """Which scenarios, which settings: the report's header."""
    people, conversations = load_people(args.data), load_conversations(args.data)
    questions = [q for p in people for q in p.questions]
    return {
        "benchmark": "scenarios",
        "generated_by": (
            "make eval-embedding (python -m evals scenarios --embedding local)"
            if args.embedding != "none"
            else "make eval-scenarios (python -m evals scenarios)"
        ),
        "date": utcnow().isoformat(timespec="seconds"),
        **({"note": args.note} if args.note else {}),
        "dataset": {
            "path": shown_path(args.data),
            "sha256": folder_sha256(args.data),
            "people": len(people),
            "statements": sum(len(p.statements) for p in people),
            "questions": len(questions),
            "no_answer": sum(not q.answerable for q in questions),
            "cross_lingual": sum(q.cross_lingual for q in questions),
            "conversations": len(conversations),
        },
        "settings": {
            "top_k": TOP_K,
            "track": True,
            "context_budget_tokens": CONTEXT_BUDGET_TOKENS,
            "context_preserve_recent": CONTEXT_PRESERVE_RECENT,
            "extract_cards": "on for the measurement",
            "context_memory_cards_default": settings.context_memory_cards,
            "database": database,
            "user_prefix": prefix,
            "clock": "each statement at its own instant; questions at the person's now",
            "service_overrides": service_overrides(settings),
        },
    }


async def run_scenarios_command(args: argparse.Namespace, settings: Settings) -> int:
    """Run the scenario evaluation; print the table; write ``--json`` / ``--markdown``."""
    if not args.data.is_dir():
        raise InvalidInput(f"no such scenarios folder: {args.data}")
    if args.embedding != "none":
        settings = settings.model_copy(update={"embedding_provider": args.embedding})
    prefix = f"scenarios-{uuid.uuid4().hex[:8]}-"
    tmp_dir = None if args.database_url else Path(tempfile.mkdtemp(prefix="jarvis-scen-"))
    if tmp_dir is None:
        url = str(args.database_url)
        database = make_url(url).render_as_string(hide_password=True)
    else:
        url = f"sqlite+aiosqlite:///{(tmp_dir / 'eval.db').as_posix()}"
        database = "sqlite (temporary file, deleted afterwards)"
    try:
        run = await evaluate_scenarios(
            url, settings, args.data, prefix, migrate_first=tmp_dir is not None
        )
    finally:
        if tmp_dir is not None:
            shutil.rmtree(tmp_dir, ignore_errors=True)
    report = build_scenario_report(run, scenario_meta(args, settings, database, prefix))
    table, page = format_scenario_table(report), format_scenario_markdown(report)
    publish(report, table, page, args.json, args.markdown)
    return 0
