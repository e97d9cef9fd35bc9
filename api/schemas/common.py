"""Types every request and response body shares: memory types, levels, limits."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from models import MEMORY_TYPES
from services.core.validation import MAX_CONTENT_CHARS, check_metadata, check_tags

MemoryType = Literal[
    "fact", "preference", "goal", "decision", "constraint", "todo", "event", "code", "other"
]


Level = Literal["high", "medium", "low"]


Metadata = Annotated[dict[str, Any], AfterValidator(check_metadata)]


Tags = Annotated[list[str], AfterValidator(check_tags)]


Content = Annotated[str, Field(min_length=1, max_length=MAX_CONTENT_CHARS, pattern=r"\S")]


assert set(MemoryType.__args__) == set(MEMORY_TYPES)  # type: ignore[attr-defined]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
