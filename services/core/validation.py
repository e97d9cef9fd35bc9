"""Input limits shared by the REST schemas, the CLI and the service itself."""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any

from models import MEMORY_ROLES, MEMORY_TYPES
from services.core.errors import InvalidInput

# 1-128 of [A-Za-z0-9_.:@-], but not "." or ".." (a path segment that means another
# path, and %2e%2e reached the same tenant as ..): without a look-ahead, so pydantic's
# and every client's regex engine read it alike.
USER_ID_PATTERN = (
    r"^(?:[A-Za-z0-9_:@-][A-Za-z0-9_.:@-]{0,127}"
    r"|\.[A-Za-z0-9_:@-][A-Za-z0-9_.:@-]{0,126}"
    r"|\.\.[A-Za-z0-9_.:@-]{1,126})$"
)
# Text without NUL (PostgreSQL text cannot hold it, and no real text has one).
TEXT_PATTERN = r"^[^\x00]*$"
# Some character that is neither NUL nor whitespace, and no NUL.
CONTENT_PATTERN = r"^[^\x00]*[^\x00\s][^\x00]*$"
MAX_CONTENT_CHARS = 8000
MAX_METADATA_BYTES = 4096
MAX_BATCH_ITEMS = 1000
# The content of one batch, in all. Analysis (jieba) is some 5-30 µs of one core per
# character, so this bounds a batch's work at seconds, not minutes: 1,000 items of 8,000
# characters were 8M characters; this is twice the largest batches
# tests/api/test_batch_stall.py sends.
MAX_BATCH_CHARS = 1_000_000
MAX_TOP_K = 100
MAX_EMOTION_TAGS = 20
MAX_TAG_CHARS = 32
MAX_METADATA_DEPTH = 32
MAX_ID = 2**63 - 1
MIN_YEAR, MAX_YEAR = 1900, 9998

_USER_ID = re.compile(USER_ID_PATTERN)
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_user_id(user_id: str) -> str:
    """1–128 characters of ``[A-Za-z0-9_.:@-]``, not ``.`` or ``..``."""
    if not _USER_ID.fullmatch(user_id):
        raise InvalidInput("user_id must be 1-128 characters of [A-Za-z0-9_.:@-], not . or ..")
    return user_id


def check_text(value: str, field: str) -> str:
    """No NUL characters (PostgreSQL text cannot hold them, and no real text has them) and
    no lone surrogates (no database can store them as UTF-8, nor can the answer)."""
    if "\x00" in value:
        raise InvalidInput(f"{field} must not contain NUL characters")
    if _SURROGATE.search(value):
        raise InvalidInput(f"{field} must be valid Unicode (a lone surrogate is not)")
    return value


def check_memory_type(memory_type: str) -> str:
    """One of :data:`models.MEMORY_TYPES` (the database refuses any other)."""
    if memory_type not in MEMORY_TYPES:
        raise InvalidInput(f"memory_type must be one of: {', '.join(MEMORY_TYPES)}")
    return memory_type


def check_role(role: str) -> str:
    """One of :data:`models.MEMORY_ROLES`: whose words a memory holds."""
    if role not in MEMORY_ROLES:
        raise InvalidInput(f"role must be one of: {', '.join(MEMORY_ROLES)}")
    return role


def check_content(content: str) -> str:
    """Non-blank text of at most 8,000 characters, surrounding whitespace removed."""
    stripped = check_text(content, "content").strip()
    if not stripped:
        raise InvalidInput("content must not be empty")
    if len(stripped) > MAX_CONTENT_CHARS:
        raise InvalidInput(f"content must be at most {MAX_CONTENT_CHARS} characters")
    return stripped


def check_batch_size(contents: list[str]) -> None:
    """At most 1,000 items and 1,000,000 characters of content in all."""
    if len(contents) > MAX_BATCH_ITEMS:
        raise InvalidInput(f"a batch holds at most {MAX_BATCH_ITEMS} items")
    if sum(len(c) for c in contents) > MAX_BATCH_CHARS:
        raise InvalidInput(f"a batch holds at most {MAX_BATCH_CHARS} characters of content")


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
    check_text(text, "metadata")
    if len(text.encode()) > MAX_METADATA_BYTES:
        raise InvalidInput(f"metadata must be at most {MAX_METADATA_BYTES} bytes as JSON")
    return metadata


def check_created_at(created_at: datetime) -> datetime:
    """A timezone-aware time in the years 1900 to 9998, so every database can store and
    subtract it."""
    if created_at.tzinfo is None or created_at.utcoffset() is None:
        raise InvalidInput("created_at must include a timezone")
    # The year as written: what a client (or the OpenAPI document) can see. In UTC it is
    # then within 1899-9999, which Python and both databases hold and subtract.
    if not MIN_YEAR <= created_at.year <= MAX_YEAR:
        raise InvalidInput(f"created_at must be between {MIN_YEAR} and {MAX_YEAR}")
    return created_at


def check_tags(tags: list[str]) -> list[str]:
    """At most 20 tags of at most 32 characters; blank ones dropped, repeats merged."""
    if len(tags) > MAX_EMOTION_TAGS:
        raise InvalidInput(f"at most {MAX_EMOTION_TAGS} emotion tags")
    cleaned = list(dict.fromkeys(check_text(t, "emotion tag").strip() for t in tags if t.strip()))
    if any(len(t) > MAX_TAG_CHARS for t in cleaned):
        raise InvalidInput(
            f"at most {MAX_EMOTION_TAGS} emotion tags of at most {MAX_TAG_CHARS} characters"
        )
    return cleaned
