"""Types every request and response body shares: memory types, levels, limits."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StrictBool,
    StrictInt,
    StrictStr,
)

from models import MEMORY_ROLES, MEMORY_TYPES
from services.core.time_zones import MAX_TIME_ZONE_CHARS
from services.core.validation import (
    CONTENT_PATTERN,
    MAX_CONTENT_CHARS,
    MAX_EMOTION_TAGS,
    MAX_TAG_CHARS,
    TEXT_PATTERN,
    check_created_at,
    check_metadata,
    check_tags,
)

# Request fields are strict: no "5" or true for a number, no 1 for a boolean,
# no number for a time. Every text field carries TEXT_PATTERN: no NUL, and since pydantic
# matches a pattern on the string's UTF-8 form, no lone surrogate either (both were 500s).
Int = StrictInt
Bool = StrictBool
Float = Annotated[float, Strict(), Field(allow_inf_nan=False)]


# Put on every text field of a request: Annotated[StrictStr, NoNul, Field(max_length=…)].
NoNul = Field(pattern=TEXT_PATTERN)


def _a_time_string(value: object) -> object:
    """A time arrives as an ISO 8601 string (JSON has no other), never as a number."""
    if not isinstance(value, str | datetime):
        raise ValueError("must be an ISO 8601 time string with a timezone")
    return value


MemoryType = Literal[
    "fact", "preference", "goal", "decision", "constraint", "todo", "event", "code", "other"
]


Level = Literal["high", "medium", "low"]


Role = Literal["user", "assistant"]


Metadata = Annotated[dict[str, Any], AfterValidator(check_metadata)]


Tag = Annotated[StrictStr, NoNul, Field(max_length=MAX_TAG_CHARS)]


Tags = Annotated[list[Tag], Field(max_length=MAX_EMOTION_TAGS), AfterValidator(check_tags)]


Content = Annotated[
    StrictStr, Field(min_length=1, max_length=MAX_CONTENT_CHARS, pattern=CONTENT_PATTERN)
]


CreatedAt = Annotated[
    datetime,
    BeforeValidator(_a_time_string),
    AfterValidator(check_created_at),
    Field(description="When it was said (for imports): ISO 8601 with a timezone, years 1900-9998"),
]


assert set(MemoryType.__args__) == set(MEMORY_TYPES)  # type: ignore[attr-defined]
assert set(Role.__args__) == set(MEMORY_ROLES)  # type: ignore[attr-defined]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


TimeZone = Annotated[
    StrictStr,
    Field(
        min_length=1,
        max_length=MAX_TIME_ZONE_CHARS,
        description="an IANA time zone name, such as Asia/Shanghai or Europe/London",
        examples=["Asia/Shanghai"],
    ),
]
