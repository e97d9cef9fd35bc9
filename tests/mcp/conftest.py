"""The MCP tests' shared pieces: the SDK's own client, and tool answers read as JSON."""

from __future__ import annotations

from typing import Any

from mcp.types import CallToolResult, TextContent

Json = dict[str, Any]


def structured(result: CallToolResult) -> Json:
    """A successful tool call's structured answer."""
    assert not result.is_error, result.content
    answer: Json | None = result.structured_content
    assert answer is not None
    return answer


def error_text(result: CallToolResult) -> str:
    """A refused tool call's message (``<code>: <message>``)."""
    assert result.is_error, result.structured_content
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text
