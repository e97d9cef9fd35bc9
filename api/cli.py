"""``jarvis-memory``: serve, migrate, rescore, embed, reindex, add, recall, import and stats.

Every command opens its own unit of work and calls the same services as the routes.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from api.http_protocol import JsonErrorsH11Protocol
from api.loopback import is_loopback
from api.presenters import job_run_out, memory_out
from services.admin.admin_service import AdminService
from services.core.clock import utcnow
from services.core.db import Database
from services.core.errors import DomainError
from services.core.health import Readiness, check_readiness
from services.core.settings import (
    LEGACY_SQLITE_PATH,
    Settings,
    default_database_url,
    default_sqlite_path,
)
from services.core.validation import check_user_id
from services.embeddings.service import build_embeddings
from services.evaluation.command import (
    add_compression_arguments,
    add_locomo_arguments,
    run_compression_command,
    run_locomo_command,
)
from services.evaluation.scenario_command import add_scenarios_arguments, run_scenarios_command
from services.recall.recall_service import RecallService
from services.remembering.importers.memorybank import import_memorybank
from services.remembering.memory_service import MemoryService, NewMemory
from services.remembering.reindex import reindex
from services.scoring.jobs import run_embedding_backfill, run_rescore
from services.text.analysis import TextAnalyzer


def _print(data: Any) -> None:
    print(json.dumps(data, ensure_ascii=False, indent=2, default=str))


def _error(code: str, message: str) -> int:
    """Report a refused command on stderr as ``error: <code>: <message>``; exit status 2."""
    print(f"error: {code}: {message}", file=sys.stderr)
    return 2


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    """Run the HTTP server (uvicorn)."""
    import uvicorn

    from api.app import create_app

    if not settings.auth_enabled and not is_loopback(args.host):
        print(
            f"refusing to bind {args.host}: no JARVIS_API_KEYS/JARVIS_ADMIN_KEYS are set, so "
            "auth is off; set keys or bind 127.0.0.1",
            file=sys.stderr,
        )
        return 2
    if args.workers < 1:
        print("error: --workers must be at least 1", file=sys.stderr)
        return 2
    if args.workers == 1:
        if refusal := prepare_database(settings):
            print(f"error: not_migrated: {refusal}", file=sys.stderr)
            return 2
        uvicorn.run(
            create_app(settings),
            host=args.host,
            port=args.port,
            log_level="info",
            http=JsonErrorsH11Protocol,
        )
        return 0
    if make_url(settings.database_url).get_backend_name() == "sqlite":
        print(
            "refusing --workers > 1 on SQLite: the embedded database serves one process "
            "(one writer at a time, a scheduler that must not overlap itself); set "
            "DATABASE_URL to PostgreSQL",
            file=sys.stderr,
        )
        return 2
    from api.workers import exec_supervisor, reuse_port_socket

    # Each worker builds its own app (and pool, and scheduler: the rescoring job's
    # advisory lock lets one process run it; the others record a skipped run) and
    # listens on a socket of its own, so the kernel spreads connections over them.
    try:
        holder = reuse_port_socket(args.host, args.port)
    except OSError as exc:
        print(f"error: cannot bind {args.host}:{args.port}: {exc}", file=sys.stderr)
        return 2
    # After the port (refused at once), before any worker starts.
    if refusal := prepare_database(settings):
        holder.close()
        print(f"error: not_migrated: {refusal}", file=sys.stderr)
        return 2
    # This process becomes the supervisor, without the modules it imported.
    exec_supervisor("api.app:app_from_environment", holder, args.workers)


def cmd_mcp(args: argparse.Namespace, settings: Settings) -> int:
    """The MCP server over stdio for one user (desktop clients start it themselves)."""
    from api.mcp.stdio import serve_stdio

    user = args.user or settings.jarvis_mcp_user
    if not user:
        return _error("invalid_input", "name the user: --user ID or JARVIS_MCP_USER")
    try:
        check_user_id(user)
    except DomainError as exc:
        return _error(exc.code, f"--user: {exc.message}")
    if refusal := prepare_database(settings):
        return _error("not_migrated", refusal)
    asyncio.run(serve_stdio(settings, user))
    return 0


def prepare_database(settings: Settings) -> str | None:
    """Before serving: migrate the embedded SQLite database to head (it is this process's
    own file, and an unmigrated one answered every write with a 500), or, for PostgreSQL,
    refuse while its schema is behind (a shared server's migrations are the operator's
    step, and replicas must not race them). Returns why serving is refused, or None.
    """
    url = settings.database_url
    if make_url(url).get_backend_name() == "sqlite":
        _mention_the_legacy_file(url)
        from services.core.schema import upgrade

        upgrade(url)
        return None

    async def readiness() -> Readiness:
        found: Readiness = await _with_db(settings, check_readiness)
        return found

    ready = asyncio.run(readiness())
    if ready.ready or not ready.database.startswith("not migrated"):
        return None  # a database that is down is /readyz's to report, not a reason to quit
    pending = ", ".join(ready.pending)
    return f"the database is {ready.database} (pending: {pending})"


def _mention_the_legacy_file(url: str) -> None:
    """Earlier versions kept the embedded database in ./data of the working directory."""
    if url == default_database_url() and LEGACY_SQLITE_PATH.exists():
        print(
            f"note: {LEGACY_SQLITE_PATH} is the embedded database of an earlier version; "
            f"the default is now {default_sqlite_path()}: move the file there, or set "
            f"DATABASE_URL=sqlite+aiosqlite:///{LEGACY_SQLITE_PATH.resolve()}",
            file=sys.stderr,
        )


def cmd_migrate(_args: argparse.Namespace, settings: Settings) -> int:
    """alembic upgrade head on DATABASE_URL."""
    from services.core.schema import upgrade

    upgrade(settings.database_url, configure_logging=True)
    return 0


async def _with_db(settings: Settings, work: Callable[[Database], Awaitable[Any]]) -> Any:
    db = Database.from_settings(settings)
    try:
        return await work(db)
    finally:
        await db.dispose()


async def _rescore(args: argparse.Namespace, settings: Settings) -> int:
    async def work(db: Database) -> Any:
        return await run_rescore(db, settings, utcnow, user_id=args.user, trigger="cli")

    run = await _with_db(settings, work)
    _print(job_run_out(run).model_dump(mode="json"))
    return 0 if run.status in ("succeeded", "skipped") else 1


async def _embed(args: argparse.Namespace, settings: Settings) -> int:
    embeddings = build_embeddings(settings)
    if embeddings is None:
        return _error("embeddings_off", "EMBEDDING_PROVIDER is none, so there is nothing to embed")

    async def work(db: Database) -> Any:
        return await run_embedding_backfill(
            db, settings, utcnow, embeddings, user_id=args.user, trigger="cli"
        )

    run = await _with_db(settings, work)
    _print(job_run_out(run).model_dump(mode="json"))
    return 0 if run.status == "succeeded" else 1


async def _add(args: argparse.Namespace, settings: Settings) -> int:
    analyzer = TextAnalyzer(settings)

    async def work(db: Database) -> Any:
        async with db.unit_of_work() as session:
            service = MemoryService(session, settings, analyzer, utcnow)
            item = NewMemory(content=args.content, memory_type=args.type, emotion_tags=args.tag)
            return await service.add(args.user, item)

    stored = await _with_db(settings, work)
    _print(memory_out(stored.memory, merged=stored.merged).model_dump(mode="json"))
    return 0


async def _recall(args: argparse.Namespace, settings: Settings) -> int:
    analyzer = TextAnalyzer(settings)

    async def work(db: Database) -> Any:
        async with db.unit_of_work() as session:
            service = RecallService(session, settings, analyzer, utcnow)
            return await service.recall_memories(
                args.user, args.query, args.top_k, explain=args.explain, track=not args.no_track
            )

    hits = await _with_db(settings, work)
    _print(
        [
            {
                "score": h.score,
                "relevance": h.relevance,
                "importance": h.importance,
                "memory": memory_out(h.memory).model_dump(mode="json"),
                **({"explanation": h.explanation} if h.explanation else {}),
            }
            for h in hits
        ]
    )
    return 0


async def _reindex(args: argparse.Namespace, settings: Settings) -> int:
    analyzer = TextAnalyzer(settings)

    async def work(db: Database) -> Any:
        return await reindex(db, analyzer, args.user)

    result = await _with_db(settings, work)
    _print({"users": result.users, "memories": result.memories})
    return 0


async def _import(args: argparse.Namespace, settings: Settings) -> int:
    analyzer = TextAnalyzer(settings)

    async def work(db: Database) -> Any:
        return await import_memorybank(
            db, (settings, analyzer, utcnow), args.path, user_prefix=args.user_prefix
        )

    imported = await _with_db(settings, work)
    _print(
        [
            {"name": u.name, "user_id": u.user_id, "messages": u.messages, "memories": u.memories}
            for u in imported
        ]
    )
    return 0


async def _stats(_args: argparse.Namespace, settings: Settings) -> int:
    async def work(db: Database) -> Any:
        async with db.unit_of_work() as session:
            return await AdminService(session, settings).stats()

    _print(await _with_db(settings, work))
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command-line grammar."""
    parser = argparse.ArgumentParser(prog="jarvis-memory", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the HTTP API")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes (PostgreSQL only): each has its own event loop and pool",
    )
    mcp = sub.add_parser(
        "mcp", help="MCP server over stdio for one user (Claude Desktop, Cursor, ...)"
    )
    mcp.add_argument("--user", default=None, help="whose memories (default: JARVIS_MCP_USER)")
    sub.add_parser("migrate", help="alembic upgrade head")
    rescore = sub.add_parser("rescore", help="rescore now (for cron)")
    rescore.add_argument("--user", default=None, help="only this user's memories")
    embed = sub.add_parser("embed", help="embed memories without a vector now (for cron)")
    embed.add_argument("--user", default=None, help="only this user's memories")
    add = sub.add_parser("add", help="remember a statement")
    add.add_argument("user")
    add.add_argument("content")
    add.add_argument("--type", default="other")
    add.add_argument("--tag", action="append", default=[], help="explicit emotion tag")
    recall = sub.add_parser("recall", help="recall memories for a query")
    recall.add_argument("user")
    recall.add_argument("query", nargs="?", default="")
    recall.add_argument("--top-k", type=int, default=5)
    recall.add_argument("--explain", action="store_true")
    recall.add_argument("--no-track", action="store_true", help="leave recall counts alone")
    sub.add_parser("stats", help="service-wide counts")
    again = sub.add_parser("reindex", help="rebuild the search index with the current analyzer")
    again.add_argument("--user", default=None, help="only this user's memories")
    importer = sub.add_parser("import", help="import conversation histories as memories")
    sources = importer.add_subparsers(dest="source", required=True)
    bank = sources.add_parser("memorybank", help="MemoryBank/SiliconFriend history JSON")
    bank.add_argument("path", type=Path)
    bank.add_argument("--user-prefix", default="memorybank-", help="user ids are <prefix><NN>")
    evaluate = sub.add_parser("eval", help="recall evaluation on a benchmark dataset")
    benchmarks = evaluate.add_subparsers(dest="benchmark", required=True)
    add_locomo_arguments(benchmarks.add_parser("locomo", help="LoCoMo recall@k vs BM25"))
    add_compression_arguments(
        benchmarks.add_parser("compression", help="LoCoMo evidence kept by smart_compress")
    )
    add_scenarios_arguments(
        benchmarks.add_parser(
            "scenarios", help="personal-assistant scenarios: precision, filler, card junk"
        )
    )
    return parser


async def _eval(args: argparse.Namespace, settings: Settings) -> int:
    if args.benchmark == "compression":
        return await run_compression_command(args, settings)
    if args.benchmark == "scenarios":
        return await run_scenarios_command(args, settings)
    return await run_locomo_command(args, settings)


ASYNC_COMMANDS: dict[str, Callable[[argparse.Namespace, Settings], Coroutine[Any, Any, int]]] = {
    "rescore": _rescore,
    "embed": _embed,
    "add": _add,
    "recall": _recall,
    "stats": _stats,
    "reindex": _reindex,
    "import": _import,
    "eval": _eval,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``jarvis-memory`` console script."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    args = build_parser().parse_args(argv)
    settings = Settings()
    try:
        if args.command == "serve":
            return cmd_serve(args, settings)
        if args.command == "migrate":
            return cmd_migrate(args, settings)
        if args.command == "mcp":
            return cmd_mcp(args, settings)
        return asyncio.run(ASYNC_COMMANDS[args.command](args, settings))
    except DomainError as exc:
        return _error(exc.code, exc.message)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
