"""The command-line grammar of ``jarvis-memory``: every command and option says what it
does, and an option with a fixed set of values lists them."""

from __future__ import annotations

import argparse
from pathlib import Path

from models import MEMORY_ROLES, MEMORY_TYPES
from services.core.validation import MAX_TOP_K

DESCRIPTION = """jarvis-memory: serve, mcp, migrate, rescore, embed, reindex, add, recall, import,
stats, keys.

Every command opens its own unit of work and calls the same services as the routes.
Results print as text for people; --json prints the API's JSON shapes for scripts.
Progress bars (import, reindex, embed) go to standard error, in a terminal only."""


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions as written; an option's default after its help, when it has one worth
    saying (not for a flag, an empty list or None)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if default in (None, False, [], argparse.SUPPRESS) or "%(default)" in text:
            return text
        if action.option_strings or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE):
            return f"{text} (default: %(default)s)" if default != "" else text
        return text


def _json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--json",
        action="store_true",
        help="print JSON (the API's shapes, ISO 8601 times) instead of text, for scripts",
    )


def _user_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--user", default=None, metavar="USER_ID", help="only this user's memories (default: all)"
    )


def _serve(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to bind; without API keys only a loopback address is allowed",
    )
    parser.add_argument("--port", type=int, default=8000, help="TCP port")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="server processes (PostgreSQL only): each has its own event loop and pool",
    )


def _add(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("user", help="user id: 1-128 of A-Z a-z 0-9 _ . : @ -")
    parser.add_argument("content", help="what to remember")
    parser.add_argument(
        "--type",
        default="other",
        choices=MEMORY_TYPES,
        metavar="TYPE",
        help=f"kind of memory, one of: {', '.join(MEMORY_TYPES)}",
    )
    parser.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="TAG",
        help="an explicit emotion tag such as 很重要 (repeat for several)",
    )
    parser.add_argument(
        "--role",
        default="user",
        choices=MEMORY_ROLES,
        help="whose words: the person's own (user, the default) or the assistant's reply",
    )
    _json_flag(parser)


def _recall(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("user", help="user id")
    parser.add_argument(
        "query", nargs="?", default="", help="what to look for; empty: the most important"
    )
    parser.add_argument(
        "--top-k", type=int, default=5, metavar="K", help=f"how many, 1-{MAX_TOP_K}"
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="say why each memory ranked where it did (signals, matched terms, importance)",
    )
    parser.add_argument("--no-track", action="store_true", help="leave recall counts alone")
    parser.add_argument(
        "--min-confidence",
        type=float,
        default=None,
        metavar="C",
        help="leave out hits of lower confidence, 0-1 (default RECALL_MIN_CONFIDENCE)",
    )
    _json_flag(parser)


def _import(parser: argparse.ArgumentParser) -> None:
    sources = parser.add_subparsers(dest="source", required=True, metavar="SOURCE")
    bank = sources.add_parser(
        "memorybank",
        help="MemoryBank/SiliconFriend history JSON",
        description="Each user of the file becomes <prefix><NN>; each message, a memory.",
        formatter_class=_HelpFormatter,
    )
    bank.add_argument("path", type=Path, help="the MemoryBank JSON file")
    bank.add_argument("--user-prefix", default="memorybank-", help="user ids are <prefix><NN>")
    bank.add_argument(
        "--again",
        action="store_true",
        help="import a file whose messages are already stored: each repeat then counts as a "
        "new mention of its memory (without --again such an import is refused)",
    )
    _json_flag(bank)


def _keys(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    def action(name: str, summary: str) -> argparse.ArgumentParser:
        made = actions.add_parser(
            name, help=summary, description=summary, formatter_class=_HelpFormatter
        )
        _json_flag(made)
        return made

    create = action("create", "make a key; its secret is printed once, and stored hashed")
    create.add_argument("--name", required=True, help="what the key is for (1-128 characters)")
    create.add_argument(
        "--scope",
        default="all",
        metavar="all|prefix:P",
        help="the users the key reaches: all, or those whose id starts with P "
        "(end P with a separator, e.g. prefix:acme:)",
    )
    create.add_argument(
        "--admin",
        action="store_true",
        help="an admin key: also /admin, the console and /metrics (the routes spanning "
        "every user need --scope all)",
    )
    action("list", "every key, revoked ones too, without secrets")
    revoke = action("revoke", "refuse a key from its next request on, in every process")
    revoke.add_argument("id", type=int, help="the key's id (keys list)")


def _users(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")

    def action(name: str, summary: str) -> argparse.ArgumentParser:
        return actions.add_parser(
            name, help=summary, description=summary, formatter_class=_HelpFormatter
        )

    erase = action(
        "erase",
        "erase a person: memories, vectors, index, history, message scores, their row "
        "and the keys bound to exactly them, in one transaction (idempotent)",
    )
    erase.add_argument("user_id", metavar="USER_ID", help="whom to erase")
    _json_flag(erase)
    export = action(
        "export",
        "write everything the service holds of a person as JSON Lines (the format of "
        "GET /v1/users/{user_id}/export)",
    )
    export.add_argument("user_id", metavar="USER_ID", help="whose data")
    export.add_argument(
        "--output",
        "-o",
        type=Path,
        default=None,
        metavar="FILE",
        help="write to FILE instead of standard output",
    )
    imported = action(
        "import",
        "import an export as a person who has no memories, all or nothing (the user id "
        "may differ from the exported one)",
    )
    imported.add_argument("user_id", metavar="USER_ID", help="whose data it becomes")
    imported.add_argument("path", metavar="FILE", help="the export; - reads standard input")
    _json_flag(imported)


def build_parser() -> argparse.ArgumentParser:
    """The command-line grammar."""
    parser = argparse.ArgumentParser(
        prog="jarvis-memory",
        description=DESCRIPTION,
        formatter_class=_HelpFormatter,
        epilog="Settings come from the environment and .env (DATABASE_URL, JARVIS_API_KEYS, "
        "LOG_FORMAT, ...): docs/configuration.md.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, summary: str) -> argparse.ArgumentParser:
        return sub.add_parser(
            name, help=summary, description=summary, formatter_class=_HelpFormatter
        )

    _serve(command("serve", "run the HTTP API (migrates the embedded SQLite database first)"))
    mcp = command("mcp", "MCP server over stdio for one user (Claude Desktop, Cursor, ...)")
    mcp.add_argument(
        "--user", default=None, metavar="USER_ID", help="whose memories (default: JARVIS_MCP_USER)"
    )
    command("migrate", "bring DATABASE_URL's schema to the newest version (alembic upgrade head)")
    for name, summary in [
        ("rescore", "rescore memories now, as the scheduler does (for cron)"),
        ("embed", "embed the memories without a vector from the current model (for cron)"),
        ("reindex", "rebuild the search index with the current analyzer"),
    ]:
        job = command(name, summary)
        _user_option(job)
        _json_flag(job)
        if name == "embed":
            job.add_argument(
                "--verify",
                action="store_true",
                help="embed nothing: report vectors whose memory's text changed since "
                "(exit status 1 if any)",
            )
    _add(command("add", "remember a statement for a user"))
    _recall(command("recall", "recall a user's memories for a query, best first"))
    _json_flag(command("stats", "service-wide counts and the last rescoring run"))
    _import(command("import", "import conversation histories as memories"))
    _keys(command("keys", "API keys bound to all users or a user-id prefix"))
    _users(command("users", "a person's data: erase, export or import everything of one user"))
    return parser
