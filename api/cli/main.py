"""``jarvis-memory``: serve, migrate, rescore, embed, reindex, add, recall, import and stats.

Every command opens its own unit of work and calls the same services as the routes.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any

from sqlalchemy.engine import make_url

from api.cli.keys import run_keys_command
from api.cli.output import print_json, print_recall, print_table
from api.cli.parser import build_parser
from api.cli.progress import ProgressBar
from api.cli.users import run_users_command
from api.observability.request_logging import configure_logging, log_config
from api.presenters import iso, job_run_out, memory_out
from api.server.http_protocol import JsonErrorsH11Protocol
from api.server.loopback import is_loopback
from services.admin.admin_service import AdminService
from services.composition import Services
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
from services.embeddings.jobs import VectorCheck, run_embedding_backfill, verify_vectors
from services.remembering.importers.memorybank import import_memorybank
from services.remembering.memory_service import NewMemory
from services.remembering.reindex import reindex
from services.scoring.jobs import run_rescore


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
    if args.workers > 1 and settings.metrics_bind:
        print(
            "error: METRICS_BIND serves one process's metrics; with --workers > 1 every "
            "worker would bind it; unset it (/metrics with an admin key answers from one worker)",
            file=sys.stderr,
        )
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
            log_config=log_config(settings.log_format),
            access_log=settings.log_format != "json",
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
    from api.server.workers import exec_supervisor, reuse_port_socket

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
    """Before serving or a command on the database: migrate the embedded SQLite database
    to head (it is this process's own file, and an unmigrated one answered every write
    with a 500), or, for PostgreSQL, refuse while its schema is behind (a shared server's
    migrations are the operator's step, and replicas must not race them). Returns why
    serving is refused, or None.
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


async def _with_services(settings: Settings, work: Callable[[Services], Awaitable[Any]]) -> Any:
    """``work`` on the composition root's services, built as ``serve`` builds them (the
    same providers: a recall here ranks with the embedding model the server uses)."""
    services = Services.from_settings(settings)
    try:
        return await work(services)
    finally:
        await services.db.dispose()


def _job_line(run: Any) -> str:
    line = f"{run.job} run {run.id} {run.status}: {run.rows} rows"
    if run.job == "rescore":
        line += f", {run.escalations} escalations"
    if run.failures:
        line += f", {run.failures} texts cannot be embedded (skipped until edited)"
    line += f" ({iso(run.started_at)} to {iso(run.finished_at)})"
    return line + (f"\n  error: {run.error}" if run.error else "")


async def _rescore(args: argparse.Namespace, settings: Settings) -> int:
    async def work(services: Services) -> Any:
        return await run_rescore(
            services.db, settings, services.clock, user_id=args.user, trigger="cli"
        )

    run = await _with_services(settings, work)
    if args.json:
        print_json(job_run_out(run).model_dump(mode="json"))
    else:
        print(_job_line(run))
    return 0 if run.status in ("succeeded", "skipped") else 1


async def _embed(args: argparse.Namespace, settings: Settings) -> int:
    if settings.embedding_provider == "none":
        return _error("embeddings_off", "EMBEDDING_PROVIDER is none, so there is nothing to embed")

    if args.verify:
        return await _verify_vectors(args, settings)

    async def work(services: Services) -> Any:
        assert services.embeddings is not None
        with ProgressBar("embedding") as bar:
            return await run_embedding_backfill(
                services.db,
                settings,
                services.clock,
                services.embeddings,
                user_id=args.user,
                trigger="cli",
                progress=bar,
            )

    run = await _with_services(settings, work)
    if args.json:
        print_json(job_run_out(run).model_dump(mode="json"))
    else:
        print(_job_line(run))
    return 0 if run.status == "succeeded" else 1


async def _verify_vectors(args: argparse.Namespace, settings: Settings) -> int:
    async def work(services: Services) -> Any:
        assert services.embeddings is not None
        return await verify_vectors(services.db, settings, services.embeddings, user_id=args.user)

    check: VectorCheck = await _with_services(settings, work)
    if args.json:
        print_json(dataclasses.asdict(check))
    else:
        print(
            f"{check.checked} vectors of {check.model}: {check.matching} match their text, "
            f"{len(check.stale)} stale, {check.unknown} of unknown source"
        )
        for user, memory_id in check.stale:
            print(f"  stale: user {user}, memory {memory_id}")
    return 1 if check.stale else 0


async def _add(args: argparse.Namespace, settings: Settings) -> int:
    async def work(services: Services) -> Any:
        async with services.db.unit_of_work() as session:
            service = services.memories(session)
            item = NewMemory(
                content=args.content, memory_type=args.type, emotion_tags=args.tag, role=args.role
            )
            return await service.add(args.user, item)

    stored = await _with_services(settings, work)
    memory = stored.memory
    if args.json:
        print_json(memory_out(memory, merged=stored.merged).model_dump(mode="json"))
    else:
        done = "merged into" if stored.merged else "remembered as"
        print(
            f"{done} #{memory.id} ({memory.memory_type}, {memory.importance_level} "
            f"{memory.importance_score:.3f}, mentioned {memory.mention_count}x)"
        )
    return 0


async def _recall(args: argparse.Namespace, settings: Settings) -> int:
    async def work(services: Services) -> Any:
        # As serve does before its first request: a cold model's first query would
        # otherwise spend the provider's timeout loading it and recall without it.
        await services.warm()
        async with services.db.unit_of_work() as session:
            service = services.recall(session)
            return await service.recall_memories(
                args.user,
                args.query,
                args.top_k,
                explain=args.explain,
                track=not args.no_track,
                min_confidence=args.min_confidence,
            )

    hits = await _with_services(settings, work)
    if not args.json:
        print_recall(hits, explain=args.explain)
        return 0
    print_json(
        [
            {
                "score": h.score,
                "relevance": h.relevance,
                "importance": h.importance,
                "confidence": h.confidence,
                "evidence": h.evidence.as_dict() if h.evidence else None,
                "counted": h.counted,
                "memory": memory_out(h.memory).model_dump(mode="json"),
                **({"explanation": h.explanation} if h.explanation else {}),
            }
            for h in hits
        ]
    )
    return 0


async def _reindex(args: argparse.Namespace, settings: Settings) -> int:
    async def work(services: Services) -> Any:
        with ProgressBar("reindexing") as bar:
            return await reindex(services.db, services.analyzer, args.user, progress=bar)

    result = await _with_services(settings, work)
    if args.json:
        print_json({"users": result.users, "memories": result.memories})
    else:
        print(f"reindexed {result.memories} memories of {result.users} users")
    return 0


async def _import(args: argparse.Namespace, settings: Settings) -> int:
    async def work(services: Services) -> Any:
        with ProgressBar("importing") as bar:
            return await import_memorybank(
                services.db,
                (settings, services.analyzer, services.clock),
                args.path,
                user_prefix=args.user_prefix,
                again=args.again,
                progress=bar,
            )

    imported = await _with_services(settings, work)
    rows = [
        {
            "name": u.name,
            "user_id": u.user_id,
            "messages": u.messages,
            "memories": u.memories,
            "merged": u.merged,
        }
        for u in imported
    ]
    if args.json:
        print_json(rows)
        return 0
    print_table(list(rows[0]) if rows else [], [list(r.values()) for r in rows])
    merged = sum(u.merged for u in imported)
    print(f"{sum(u.messages for u in imported)} messages, {merged} merged into a memory")
    return 0


async def _stats(args: argparse.Namespace, settings: Settings) -> int:
    async def work(services: Services) -> Any:
        async with services.db.unit_of_work() as session:
            return await AdminService(session, settings).stats(
                services.embedding_model, services.clock()
            )

    stats = await _with_services(settings, work)
    if args.json:
        print_json(stats)
        return 0
    levels = ", ".join(f"{level} {n}" for level, n in sorted(stats["levels"].items())) or "none"
    print(f"users       {stats['users']}")
    print(f"memories    {stats['memories']} ({levels})")
    print(f"importance  {stats['mean_importance']:.3f} on average")
    print(f"recalls     {stats['recalls']}")
    print(f"mentions    {stats['mentions']}")
    last = stats["last_rescore"]
    if last is None:
        print("rescored    never")
    else:
        finished = iso(last["finished_at"])
        print(f"rescored    {finished} ({last['status']}, {last['rows']} rows)")
    embedded = stats["last_embedding"]
    if embedded is None:
        print("embedded    never")
    else:
        finished, status, rows = iso(embedded["finished_at"]), embedded["status"], embedded["rows"]
        print(f"embedded    {finished} ({status}, {rows} vectors)")
    backlog = stats["embedding"]
    if backlog is not None:
        print(f"vectors     {vector_backlog(backlog)}")
    return 0


def vector_backlog(backlog: dict[str, Any]) -> str:
    """``12 pending (oldest 95 s ago), backfill 19.2/s``, for people reading ``stats``."""
    text = f"{backlog['pending']} pending"
    oldest = backlog["oldest_pending_seconds"]
    if oldest is not None:
        text += f" (oldest {oldest:.0f} s ago)"
    if backlog.get("failed"):
        text += f", {backlog['failed']} cannot be embedded"
    rate = backlog["backfill_rate"]
    return text + (f", backfill {rate:.1f}/s" if rate is not None else "")


ASYNC_COMMANDS: dict[str, Callable[[argparse.Namespace, Settings], Coroutine[Any, Any, int]]] = {
    "rescore": _rescore,
    "embed": _embed,
    "add": _add,
    "recall": _recall,
    "stats": _stats,
    "reindex": _reindex,
    "import": _import,
    "keys": run_keys_command,
    "users": run_users_command,
}
# The commands that read or write DATABASE_URL: like serve, they migrate the embedded file
# first (a new user's first `jarvis-memory add` met "no such table") and refuse a
# PostgreSQL schema that is behind.
ON_THE_DATABASE = frozenset(ASYNC_COMMANDS)
SIGPIPE_STATUS = 128 + signal.SIGPIPE  # 141, as a shell reports a process SIGPIPE ended


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``jarvis-memory`` console script."""
    args = build_parser().parse_args(argv)
    settings = Settings()
    configure_logging(settings.log_format)
    try:
        if args.command == "serve":
            return cmd_serve(args, settings)
        if args.command == "migrate":
            return cmd_migrate(args, settings)
        if args.command == "mcp":
            return cmd_mcp(args, settings)
        if args.command in ON_THE_DATABASE and (refusal := prepare_database(settings)):
            return _error("not_migrated", refusal)
        return asyncio.run(ASYNC_COMMANDS[args.command](args, settings))
    except DomainError as exc:
        return _error(exc.code, exc.message)
    except BrokenPipeError:
        # The reader went away (`| head`): no traceback, and the exit status of a process
        # that SIGPIPE ended. stdout goes to /dev/null so the interpreter's final flush
        # does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return SIGPIPE_STATUS


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
