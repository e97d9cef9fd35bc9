"""The README's MCP configuration snippets start what the tests drive (tests/mcp/)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from api.cli.parser import build_parser
from api.mcp.http import PATH

README = Path(__file__).resolve().parents[2] / "README.md"


def _snippet(marker: str) -> dict[str, Any]:
    found = re.search(rf"<!-- {marker} -->\n```json\n(.*?)```", README.read_text(), re.DOTALL)
    assert found, marker
    config: dict[str, Any] = json.loads(found.group(1))["mcpServers"]["jarvis-memory"]
    return config


def test_the_stdio_snippet_runs_the_console_script_s_mcp_command() -> None:
    config = _snippet("mcp-stdio-config")
    assert config["command"].endswith("/.venv/bin/jarvis-memory")
    args = build_parser().parse_args(config["args"])
    assert (args.command, args.user) == ("mcp", "alice")


def test_the_http_snippet_names_the_mounted_path_and_a_bearer_key() -> None:
    config = _snippet("mcp-http-config")
    assert config["url"] == f"http://127.0.0.1:8000{PATH}"
    assert config["headers"]["Authorization"].startswith("Bearer ")
