"""Input limits shared by the REST schemas, the CLI and the service itself."""

from __future__ import annotations

import json
import re
from typing import Any

from services.errors import InvalidInput

USER_ID_PATTERN = r"^[A-Za-z0-9_.:@-]{1,128}$"
MAX_CONTENT_CHARS = 8000
MAX_METADATA_BYTES = 4096
MAX_BATCH_ITEMS = 1000
MAX_TOP_K = 100
MAX_EMOTION_TAGS = 20
MAX_TAG_CHARS = 32

_USER_ID = re.compile(USER_ID_PATTERN)


def check_user_id(user_id: str) -> str:
    """1–128 characters of ``[A-Za-z0-9_.:@-]``."""
    if not _USER_ID.fullmatch(user_id):
        raise InvalidInput("user_id must be 1-128 characters of [A-Za-z0-9_.:@-]")
    return user_id


def check_content(content: str) -> str:
    """Non-blank text of at most 8,000 characters, surrounding whitespace removed."""
    stripped = content.strip()
    if not stripped:
        raise InvalidInput("content must not be empty")
    if len(stripped) > MAX_CONTENT_CHARS:
        raise InvalidInput(f"content must be at most {MAX_CONTENT_CHARS} characters")
    return stripped


def check_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """A JSON object of at most 4 KB once serialised (UTF-8)."""
    size = len(json.dumps(metadata, ensure_ascii=False, separators=(",", ":")).encode())
    if size > MAX_METADATA_BYTES:
        raise InvalidInput(f"metadata must be at most {MAX_METADATA_BYTES} bytes as JSON")
    return metadata


def check_tags(tags: list[str]) -> list[str]:
    """At most 20 distinct non-blank tags of at most 32 characters."""
    cleaned = list(dict.fromkeys(t.strip() for t in tags if t.strip()))
    if len(cleaned) > MAX_EMOTION_TAGS or any(len(t) > MAX_TAG_CHARS for t in cleaned):
        raise InvalidInput(
            f"at most {MAX_EMOTION_TAGS} emotion tags of at most {MAX_TAG_CHARS} characters"
        )
    return cleaned
