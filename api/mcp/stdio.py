"""``jarvis-memory mcp``: the tools over stdio, for one user, for desktop clients.

The client (Claude Desktop, Cursor, ...) starts this process and speaks JSON-RPC on its
stdin and stdout, so nothing else may write to stdout: logs go to stderr.
"""

from __future__ import annotations

from api.mcp.server import build_mcp_server
from services.composition import Services
from services.core.settings import Settings


async def serve_stdio(settings: Settings, user_id: str) -> None:
    """Answer MCP requests on stdin/stdout until the client closes them.

    The services are the composition root's, as ``jarvis-memory serve`` builds them, so
    the tools answer what the REST API answers. No scheduler runs here: a desktop client
    may start several of these at once on one SQLite file. Scores are rescored at each
    write and recall; the periodic rescoring is ``jarvis-memory serve``'s or
    ``jarvis-memory rescore``'s (cron). With embeddings configured, the process makes
    the vectors of its writes itself (services/embeddings/backfill.py): at start, soon after
    a write, and every EMBEDDING_BACKFILL_INTERVAL.
    """
    services = Services.from_settings(settings)
    services.background.start()
    backfill = services.backfill_loop()
    try:
        await services.warm()
        if backfill is not None:
            backfill.start()
        await build_mcp_server(lambda: services, user_id).run_stdio_async()
    finally:
        if backfill is not None:
            await backfill.close()
        await services.background.close()
        await services.db.dispose()
