"""The format of a person's export: JSON Lines, one object per line, each with a ``kind``.

Written by ``GET /v1/users/{user_id}/export`` (and ``jarvis-memory users export``), read
back by ``POST /v1/users/{user_id}/import``. In order:

1. ``header``: the format's name and ``version`` (:data:`FORMAT_VERSION`), whose it was,
   when it was made;
2. ``person``: the person's own row (when the service first and last saw them) and
   their settings (``time_zone``);
3. one ``memory`` per memory, oldest id first, with its score history and its vector;
4. one ``link`` per link between two memories;
5. one ``message_score`` per scored message, one ``compression`` per compression run;
6. ``end``: how many lines of each kind came before it, so a cut-short stream (a dropped
   connection, a full disk) is refused instead of imported in part.

Memories are named by ``ref``, their position in the export (1, 2, …), not by the
service's ids: ids are numbered across every user of a database, so another database
(or the same one after an erasure) gives the imported memories other ids. Links and
supersession name memories by ``ref``. An export imported and exported again is the same
text but for the header's ``user_id`` and ``exported_at``.

What is not in it: the search index and term statistics (derived from the text, and
rebuilt on import by the importing service's analyzer), job runs (the operator's
records) and API keys (credentials, not the person's data). ``content_hash`` of a
message score is keyed by the exporting deployment's secret: another deployment never
recognises the message by it, and scores it afresh.

The field names are the database's columns (``models/``), so the document says what the
service holds in the service's own words; the pydantic models below refuse anything the
database's constraints would.
"""

from __future__ import annotations

from typing import Annotated, Any, Final, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, TypeAdapter

from models import ASSOCIATION_KINDS, IMPORTANCE_LEVELS, MEMORY_ROLES, MEMORY_TYPES

FORMAT: Final = "jarvis-memory.person"
FORMAT_VERSION = 1
MEDIA_TYPE = "application/x-ndjson"

Unit = Annotated[float, Field(ge=0.0, le=1.0)]
Count = Annotated[int, Field(ge=0)]
Ref = Annotated[int, Field(ge=1)]
Short = Annotated[str, Field(max_length=128)]
Stamp = AwareDatetime
MemoryType = Literal[MEMORY_TYPES]  # type: ignore[valid-type]
Role = Literal[MEMORY_ROLES]  # type: ignore[valid-type]
Level = Literal[IMPORTANCE_LEVELS]  # type: ignore[valid-type]
LinkKind = Literal[ASSOCIATION_KINDS]  # type: ignore[valid-type]


class Line(BaseModel):
    """One line: unknown fields are refused, not dropped (a newer format's data would
    otherwise be lost without a word)."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Header(Line):
    kind: Literal["header"] = "header"
    format: Literal["jarvis-memory.person"] = FORMAT
    version: int
    user_id: str
    exported_at: Stamp


class Person(Line):
    kind: Literal["person"] = "person"
    created_at: Stamp
    updated_at: Stamp
    time_zone: Annotated[str, Field(max_length=64)] | None = None


class ScoreSnapshot(Line):
    """A row of the memory's score history."""

    scored_at: Stamp
    reason: Annotated[str, Field(max_length=16)]
    importance_score: Unit
    importance_level: Level
    frequency_score: Unit
    recency_score: Unit
    emotion_score: Unit
    impact_score: Unit


class Vector(Line):
    """The memory's embedding: little-endian float32, base64."""

    model: Annotated[str, Field(min_length=1, max_length=200)]
    dim: Annotated[int, Field(ge=1)]
    vector: str
    embedded_at: Stamp
    source_hash: Annotated[str, Field(max_length=64)] | None


class Memory(Line):
    kind: Literal["memory"] = "memory"
    ref: Ref
    content: str
    memory_type: MemoryType
    role: Role
    source: Short | None
    conversation_id: Short | None
    metadata: dict[str, Any]
    created_at: Stamp
    updated_at: Stamp
    frequency_count: Count
    mention_count: Count
    recall_count: Count
    last_recalled_at: Stamp | None
    last_mentioned_at: Stamp | None
    emotion_tags: list[str]
    emotion_score: Unit
    topics: list[Annotated[str, Field(max_length=64)]]
    associated_count: Count
    importance_score: Unit
    importance_level: Level
    frequency_score: Unit
    recency_score: Unit
    impact_score: Unit
    scored_at: Stamp | None
    escalated_at: Stamp | None
    escalation_acknowledged_at: Stamp | None
    fact_slot: Annotated[str, Field(max_length=64)] | None
    superseded_by: Ref | None
    superseded_at: Stamp | None
    history: list[ScoreSnapshot]
    vector: Vector | None


class Link(Line):
    kind: Literal["link"] = "link"
    a: Ref
    b: Ref
    link_kind: LinkKind
    weight: Annotated[float, Field(gt=0.0)]
    shared_topics: list[str]
    created_at: Stamp


class MessageScore(Line):
    kind: Literal["message_score"] = "message_score"
    conversation_id: Short
    message_index: int
    message_id: Short | None
    role: Annotated[str, Field(max_length=16)]
    content_hash: Annotated[str, Field(max_length=64)]
    task_hash: Annotated[str, Field(max_length=32)]
    task_type: Annotated[str, Field(max_length=16)]
    total: float
    dimensions: dict[str, Any]
    confidence: float
    method: Annotated[str, Field(max_length=8)]
    reason: str | None
    llm_score: float | None
    scored_at: Stamp


class Compression(Line):
    kind: Literal["compression"] = "compression"
    conversation_id: Short
    created_at: Stamp
    task_hash: Annotated[str, Field(max_length=32)]
    from_count: int
    to_count: int
    from_tokens: int
    to_tokens: int
    compression_rate: float
    target_count: int | None
    budget_tokens: int | None
    preserve_recent: int
    kept: list[int]
    dropped: list[int]


class End(Line):
    kind: Literal["end"] = "end"
    counts: dict[str, Count]


AnyLine = Annotated[
    Header | Person | Memory | Link | MessageScore | Compression | End,
    Field(discriminator="kind"),
]
LINE: TypeAdapter[AnyLine] = TypeAdapter(AnyLine)
# The kinds an ``end`` line counts: every kind between the header and it.
COUNTED = ("person", "memory", "link", "message_score", "compression")


def encode(line: Line) -> bytes:
    """One line of the document, newline included (compact JSON, UTF-8, fields in the
    models' order: the same data is always the same bytes)."""
    return line.model_dump_json().encode() + b"\n"


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one line (docs/person-export.schema.json, written by
    ``python -m docsgen`` and kept in step by tests/docs/test_export_schema.py)."""
    return LINE.json_schema()
