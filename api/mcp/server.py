"""The MCP server (the official ``mcp`` SDK's ``MCPServer``) with the memory tools.

Over HTTP one server answers for every user, so each tool takes a ``user_id``; over
stdio the server belongs to one user (``jarvis-memory mcp --user``), and the tools are
published without it, so a desktop client's model cannot reach anyone else's memories.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, get_type_hints

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError
from mcp.types import ToolAnnotations

from api.mcp.tools import MemoryTools, ToolFailure
from services.composition import Services

INSTRUCTIONS = (
    "Long-term memory about the user. Call recall before answering anything that may "
    "depend on what the user said before; remember durable facts, preferences, goals, "
    "decisions and todos as the user states them; use correct_fact when the user says a "
    "stored memory is no longer true, and forget only when asked to."
)
RESOURCE_URI = "memory://important"
RESOURCE_TEMPLATE = "memory://users/{user_id}/important"

Tool = Callable[..., Awaitable[Any]]


def _for_user(tool: Tool, user_id: str) -> Tool:
    """``tool`` with ``user_id`` fixed and left out of its published parameters."""
    signature = inspect.signature(tool)
    hints = get_type_hints(tool, include_extras=True)

    async def bound(**arguments: Any) -> Any:
        return await tool(user_id=user_id, **arguments)

    bound.__name__ = tool.__name__
    bound.__doc__ = tool.__doc__
    # The SDK builds the argument schema from the signature and the type hints.
    bound.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=[
            p.replace(annotation=hints[p.name])
            for p in signature.parameters.values()
            if p.name != "user_id"
        ],
        return_annotation=hints["return"],
    )
    bound.__annotations__ = {k: v for k, v in hints.items() if k != "user_id"}
    return bound


async def _important_json(tools: MemoryTools, user_id: str) -> str:
    """The resource's body; a refusal (an invalid user id) is the reader's error."""
    try:
        return (await tools.most_important(user_id)).model_dump_json()
    except ToolFailure as exc:
        raise ResourceError(str(exc)) from exc


@contextmanager
def _logging_left_alone() -> Iterator[None]:
    """MCPServer's constructor calls ``logging.basicConfig`` (with its own handler, at
    INFO), which configures the root logger of a process that had not yet: the server's
    logging is the application's to set up (``serve``, uvicorn), not the SDK's. A
    handler on the root for the moment makes that call a no-op."""
    root = logging.getLogger()
    placeholder = logging.NullHandler()
    root.addHandler(placeholder)
    try:
        yield
    finally:
        root.removeHandler(placeholder)


def build_mcp_server(
    state_of: Callable[[], Services], user_id: str | None = None, *, scoped: bool = True
) -> MCPServer:
    """The server; ``user_id`` fixes the user (stdio), None takes it per call (HTTP), where
    each call's user must be reached by the caller's key unless ``scoped`` is False (an
    in-process server with no keys)."""
    with _logging_left_alone():
        server: MCPServer = MCPServer("jarvis-memory", instructions=INSTRUCTIONS, version="0.1.0")
    tools = MemoryTools(state_of, scoped=scoped and user_id is None)
    read_only = ToolAnnotations(readOnlyHint=True, destructiveHint=False)
    published: list[tuple[Tool, ToolAnnotations | None]] = [
        (tools.remember, None),
        (tools.recall, None),  # counts the recalls, which raises importance
        (tools.forget, ToolAnnotations(destructiveHint=True)),
        (tools.list_memories, read_only),
        (tools.correct_fact, None),
        (tools.context, None),
    ]
    for tool, hints in published:
        server.add_tool(
            tool if user_id is None else _for_user(tool, user_id),
            name=tool.__name__,
            annotations=hints,
        )

    if user_id is None:

        @server.resource(
            RESOURCE_TEMPLATE,
            name="important_memories",
            description="The user's most important current memories, as JSON.",
            mime_type="application/json",
        )
        async def important_of(user_id: str) -> str:
            return await _important_json(tools, user_id)

    else:
        fixed = user_id

        @server.resource(
            RESOURCE_URI,
            name="important_memories",
            description=f"The most important current memories of {fixed}, as JSON.",
            mime_type="application/json",
        )
        async def important() -> str:
            return await _important_json(tools, fixed)

    return server
