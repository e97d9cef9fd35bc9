"""``jarvis-memory mcp``: the tools over stdio, for one user, for desktop clients.

The client (Claude Desktop, Cursor, ...) starts this process and speaks JSON-RPC on its
stdin and stdout, so nothing else may write to stdout: logs go to stderr.
"""

from __future__ import annotations

import asyncio

from api.deps import AppState
from api.mcp.server import build_mcp_server
from services.core.clock import utcnow
from services.core.db import Database
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer


async def serve_stdio(settings: Settings, user_id: str) -> None:
    """Answer MCP requests on stdin/stdout until the client closes them.

    No scheduler runs here: a desktop client may start several of these at once on one
    SQLite file. Scores are rescored at each write and recall; the periodic rescoring is
    ``jarvis-memory serve``'s or ``jarvis-memory rescore``'s (cron).
    """
    db = Database.from_settings(settings)
    analyzer = TextAnalyzer(settings)
    await asyncio.to_thread(analyzer.warm)
    state = AppState(settings, db, analyzer, utcnow)
    state.background.start()
    try:
        if state.embeddings is not None:
            await state.embeddings.warm()
        await build_mcp_server(lambda: state, user_id).run_stdio_async()
    finally:
        await state.background.close()
        await db.dispose()
