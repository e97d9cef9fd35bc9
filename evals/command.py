"""``python -m evals locomo`` and ``compression``: run a harness, print and write results.

By default the run gets its own SQLite file in a temporary directory, migrated to head
with Alembic exactly like ``jarvis-memory migrate``, and deleted afterwards. With
``--database-url`` it runs on that (already migrated) database instead, under a user_id
prefix of its own (``locomo-<run id>-``) so it cannot touch anyone else's memories; its
rows are left in place.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import shutil
import tempfile
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import make_url

import migrations
from evals.compression import PRESERVE_RECENT, run_compression
from evals.compression_report import (
    build_compression_report,
    format_compression_markdown,
    format_compression_table,
    write_text,
)
from evals.locomo import Conversation, load_locomo, run_locomo
from evals.report import build_report, format_table, write_json, write_markdown
from services.composition import Services
from services.context.importance.message_scorer import build_message_scorer
from services.context.shared.tokens import get_token_estimator
from services.core.clock import utcnow
from services.core.db import Database, build_engine
from services.core.errors import InvalidInput
from services.core.health import check_readiness
from services.core.progress import NO_PROGRESS, Progress
from services.core.settings import Settings
from services.core.validation import MAX_BATCH_ITEMS, MAX_TOP_K
from services.text.analysis import TextAnalyzer

ALEMBIC_INI = Path(migrations.__file__).resolve().parent.parent / "alembic.ini"
# Never written to a report: secrets, and the URL the run does not use.
PRIVATE_SETTINGS = {"database_url", "jarvis_api_keys", "jarvis_admin_keys"}


def parse_ks(value: str) -> tuple[int, ...]:
    """``"5,10,25"`` → ``(5, 10, 25)``: distinct, ascending, each within 1..MAX_TOP_K."""
    try:
        ks = sorted({int(part) for part in value.split(",") if part.strip()})
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--k must be integers like 5,10,25: {value!r}") from exc
    if not ks or ks[0] < 1 or ks[-1] > MAX_TOP_K:
        raise argparse.ArgumentTypeError(f"--k values must be between 1 and {MAX_TOP_K}")
    return tuple(ks)


def add_locomo_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m evals locomo``."""
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo JSON file")
    parser.add_argument("--k", type=parse_ks, default=(5, 10, 25), help="e.g. 5,10,25")
    parser.add_argument("--json", type=Path, default=None, help="write every number here")
    parser.add_argument("--markdown", type=Path, default=None, help="write a markdown table")
    parser.add_argument(
        "--database-url", default=None, help="a migrated database (default: a temporary SQLite)"
    )
    parser.add_argument(
        "--embedding",
        choices=("none", "local"),
        default="none",
        help="local: embed with EMBEDDING_MODEL (default the bundled multilingual model) and "
        "report the offline default beside it",
    )
    parser.add_argument(
        "--conversations",
        "--limit-conversations",
        dest="limit_conversations",
        type=_positive,
        default=None,
        metavar="N",
        help="only the first N conversations",
    )


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return number


async def migrate(url: str) -> None:
    """``alembic upgrade head`` through the project's env.py (it runs its own event loop)."""
    config = Config(str(ALEMBIC_INI))
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    config.attributes["configure_logging"] = False
    await asyncio.to_thread(command.upgrade, config, "head")


def sha256_of(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def dataset_meta(path: Path, conversations: Sequence[Conversation]) -> dict[str, Any]:
    """Which file was evaluated (with its hash) and how much of it."""
    return {
        "path": str(path),
        "sha256": sha256_of(path),
        "conversations": len(conversations),
        "turns": sum(len(c.turns) for c in conversations),
    }


def service_overrides(settings: Settings) -> dict[str, Any]:
    """Service settings that differ from their defaults (secrets and the URL left out)."""
    # Compared as dumps: nested settings (the recall weights) are models, dumped to dicts.
    defaults = Settings.model_construct().model_dump()
    return {
        name: value
        for name, value in settings.model_dump().items()
        if name not in PRIVATE_SETTINGS and value != defaults[name]
    }


async def run_locomo_command(
    args: argparse.Namespace, settings: Settings, progress: Progress = NO_PROGRESS
) -> int:
    """Run the LoCoMo evaluation; print the table; write ``--json`` / ``--markdown``."""
    if not args.data.is_file():
        raise InvalidInput(f"no such dataset file: {args.data}")
    conversations = load_locomo(args.data)[: args.limit_conversations]
    if args.embedding != "none":
        settings = settings.model_copy(update={"embedding_provider": args.embedding})
    run_id = uuid.uuid4().hex[:8]
    tmp_dir = None if args.database_url else Path(tempfile.mkdtemp(prefix="jarvis-eval-"))
    if tmp_dir is None:
        url = str(args.database_url)
        database = make_url(url).render_as_string(hide_password=True)
    else:
        url = f"sqlite+aiosqlite:///{(tmp_dir / 'eval.db').as_posix()}"
        database = "sqlite (temporary file, deleted afterwards)"
    db = Database(
        build_engine(
            url,
            echo=settings.db_echo,
            pool_size=settings.db_pool_size,
            plan_cache_mode=settings.db_plan_cache_mode,
        )
    )
    try:
        if tmp_dir is not None:
            await migrate(url)
        readiness = await check_readiness(db)
        if not readiness.ready:
            raise InvalidInput(
                f"database is not at migration head {readiness.head} ({readiness.database}, "
                f"revision {readiness.revision}): run jarvis-memory migrate first"
            )
        services = Services(settings, db, TextAnalyzer(settings), utcnow)
        embeddings = services.embeddings
        await asyncio.to_thread(services.analyzer.warm)
        date = utcnow()
        prefix = f"locomo-{run_id}-"
        if embeddings is not None and not await embeddings.warm():
            raise InvalidInput(f"embedding model {settings.embedding_model!r} cannot be loaded")
        run = await run_locomo(services, conversations, args.k, prefix, progress)
    finally:
        await db.dispose()
        if tmp_dir is not None:
            shutil.rmtree(tmp_dir, ignore_errors=True)
    meta = {
        "benchmark": "locomo",
        "generated_by": (
            f"{_make_target(embeddings.model)} (python -m evals locomo --embedding local)"
            if embeddings is not None
            else "make eval (python -m evals locomo)"
        ),
        "date": date.isoformat(timespec="seconds"),
        "dataset": {
            **dataset_meta(args.data, conversations),
            "questions_evaluated": sum(len(c.questions) for c in conversations),
            "questions_skipped": sum(c.skipped_questions for c in conversations),
            "evidence_ids_dropped": sum(c.dropped_evidence_ids for c in conversations),
        },
        "settings": {
            "ks": list(args.k),
            "top_k": max(args.k),
            "track": False,
            "batch_size": MAX_BATCH_ITEMS,
            "database": database,
            "user_prefix": prefix,
            "clock": "wall clock, UTC (turns keep their session dates)",
            "limit_conversations": args.limit_conversations,
            "service_overrides": service_overrides(settings),
            "service": {
                k: v for k, v in settings.model_dump().items() if k not in PRIVATE_SETTINGS
            },
        },
    }
    report = build_report(run, meta)
    print(format_table(report), end="")
    if args.json is not None:
        write_json(report, args.json)
    if args.markdown is not None:
        write_markdown(report, args.markdown)
    return 0


def _make_target(model: str) -> str:
    """The make target that produces the LoCoMo page of an embedding model."""
    return "make eval-embedding-minilm" if "minilm" in model else "make eval-embedding"


def add_compression_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m evals compression``."""
    parser.add_argument("--data", type=Path, required=True, help="a LoCoMo JSON file")
    parser.add_argument("--json", type=Path, default=None, help="write every number here")
    parser.add_argument("--markdown", type=Path, default=None, help="write a markdown page")
    parser.add_argument(
        "--limit-conversations", type=_positive, default=None, metavar="N", help="only the first N"
    )


async def run_compression_command(
    args: argparse.Namespace, settings: Settings, progress: Progress = NO_PROGRESS
) -> int:
    """Run the compression evaluation; print the table; write ``--json`` / ``--markdown``."""
    if not args.data.is_file():
        raise InvalidInput(f"no such dataset file: {args.data}")
    conversations = load_locomo(args.data)[: args.limit_conversations]
    analyzer = TextAnalyzer(settings)
    await asyncio.to_thread(analyzer.warm)
    estimator = get_token_estimator(settings.token_estimator)
    date = utcnow()
    scorer = build_message_scorer(analyzer, settings)
    run = await run_compression(conversations, scorer, estimator, progress=progress)
    meta = {
        "benchmark": "locomo-compression",
        "generated_by": "make eval-compression (python -m evals compression)",
        "date": date.isoformat(timespec="seconds"),
        "dataset": dataset_meta(args.data, conversations),
        "settings": {
            "fractions": list(run.fractions),
            "preserve_recent": PRESERVE_RECENT,
            "task_type": "default",
            "token_estimator": estimator.name,
            "llm": bool(settings.llm_base_url),
            "limit_conversations": args.limit_conversations,
            "service_overrides": service_overrides(settings),
        },
    }
    report = build_compression_report(run, meta)
    print(format_compression_table(report), end="")
    if args.json is not None:
        write_json(report, args.json)
    if args.markdown is not None:
        write_text(format_compression_markdown(report), args.markdown)
    return 0
