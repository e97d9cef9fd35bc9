"""Input limits shared by the REST schemas, the CLI and the service itself."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

from services.core.errors import InvalidInput

USER_ID_PATTERN = r"^[A-Za-z0-9_.:@-]{1,128}$"
MAX_CONTENT_CHARS = 8000
MAX_METADATA_BYTES = 4096
MAX_BATCH_ITEMS = 1000
MAX_TOP_K = 100
MAX_EMOTION_TAGS = 20
MAX_TAG_CHARS = 32
MAX_METADATA_DEPTH = 32
MAX_ID = 2**63 - 1
MIN_YEAR, MAX_YEAR = 1900, 9998

_USER_ID = re.compile(USER_ID_PATTERN)


def check_user_id(user_id: str) -> str:
    """1–128 characters of ``[A-Za-z0-9_.:@-]``."""
    if not _USER_ID.fullmatch(user_id):
        raise InvalidInput("user_id must be 1-128 characters of [A-Za-z0-9_.:@-]")
    return user_id


def check_text(value: str, field: str) -> str:
    """No NUL characters: PostgreSQL text cannot hold them, and no real text has them."""
    if "\x00" in value:
        raise InvalidInput(f"{field} must not contain NUL characters")
    return value


def check_content(content: str) -> str:
    """Non-blank text of at most 8,000 characters, surrounding whitespace removed."""
    stripped = check_text(content, "content").strip()
    if not stripped:
        raise InvalidInput("content must not be empty")
    if len(stripped) > MAX_CONTENT_CHARS:
        raise InvalidInput(f"content must be at most {MAX_CONTENT_CHARS} characters")
    return stripped


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max((_depth(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((_depth(v) for v in value), default=0)
    return 0


def check_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """A JSON object of at most 4 KB once serialised (UTF-8), nested at most 32 deep,
    with finite numbers and no NUL characters (both databases must store it unchanged)."""
    if _depth(metadata) > MAX_METADATA_DEPTH:
        raise InvalidInput(f"metadata must be nested at most {MAX_METADATA_DEPTH} levels deep")
    try:
        text = json.dumps(metadata, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:
        raise InvalidInput("metadata numbers must be finite (no NaN or Infinity)") from exc
    # json.dumps escapes control characters, so a NUL shows up as the escape sequence.
    if "\\u0000" in text:
        raise InvalidInput("metadata must not contain NUL characters")
    if len(text.encode()) > MAX_METADATA_BYTES:
        raise InvalidInput(f"metadata must be at most {MAX_METADATA_BYTES} bytes as JSON")
    return metadata


def check_created_at(created_at: datetime) -> datetime:
    """A timezone-aware time between 1900 and 9998 (UTC), so every database can store and
    subtract it."""
    if created_at.tzinfo is None:
        raise InvalidInput("created_at must include a timezone")
    try:
        utc = created_at.astimezone(UTC)
    except OverflowError as exc:
        raise InvalidInput("created_at is out of range") from exc
    if not MIN_YEAR <= utc.year <= MAX_YEAR:
        raise InvalidInput(f"created_at must be between {MIN_YEAR} and {MAX_YEAR}")
    return created_at


def check_tags(tags: list[str]) -> list[str]:
    """At most 20 distinct non-blank tags of at most 32 characters."""
    cleaned = list(dict.fromkeys(check_text(t, "emotion tag").strip() for t in tags if t.strip()))
    if len(cleaned) > MAX_EMOTION_TAGS or any(len(t) > MAX_TAG_CHARS for t in cleaned):
        raise InvalidInput(
            f"at most {MAX_EMOTION_TAGS} emotion tags of at most {MAX_TAG_CHARS} characters"
        )
    return cleaned
