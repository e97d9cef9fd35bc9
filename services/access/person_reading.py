"""Reading a person's export back: every line parsed and checked before anything is written.

An import is all or nothing. Everything that can be wrong with a document (not JSON,
another format or version, a field the database would refuse, a link to a memory it does
not hold, cut short before its ``end`` line) is found here, with the line it is on, and
refused as 422 ``invalid_export`` before the importer opens its first statement; what
only the database can find (the person already has memories) rolls the whole unit of
work back.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from services.access.person_document import (
    COUNTED,
    FORMAT,
    FORMAT_VERSION,
    LINE,
    Compression,
    End,
    Header,
    Link,
    Memory,
    MessageScore,
    Person,
)
from services.core.errors import DomainError, InvalidExport
from services.core.time_zones import check_time_zone
from services.core.validation import check_content, check_created_at, check_metadata, check_text


@dataclass
class Document:
    """A whole export, checked."""

    header: Header
    person: Person | None = None
    memories: list[Memory] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    message_scores: list[MessageScore] = field(default_factory=list)
    compressions: list[Compression] = field(default_factory=list)


def _refuse(number: int, message: str) -> InvalidExport:
    return InvalidExport(f"line {number}: {message}", details={"line": number})


def _first_error(exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in error["loc"])
    return f"{where}: {error['msg']}" if where else str(error["msg"])


def _check_header(number: int, value: Any) -> None:
    """The first line names this format and a version this service reads."""
    if not isinstance(value, dict) or value.get("kind") != "header":
        raise _refuse(number, "an export begins with its header line (kind: header)")
    if value.get("format") != FORMAT:
        raise _refuse(number, f"not a person's export: the format is not {FORMAT!r}")
    if value.get("version") != FORMAT_VERSION:
        raise _refuse(
            number,
            f"format version {value.get('version')!r}; this service reads version {FORMAT_VERSION}",
        )


def _check_memory(number: int, memory: Memory) -> None:
    """What the service checks of a memory written through the API, and its vector."""
    try:
        check_content(memory.content)
        check_metadata(memory.metadata)
        check_created_at(memory.created_at)
        texts = [memory.source, memory.conversation_id, memory.fact_slot]
        for text in [*texts, *memory.emotion_tags, *memory.topics]:
            if text is not None:
                check_text(text, "a text field")
    except DomainError as exc:
        raise _refuse(number, exc.message) from exc
    vector = memory.vector
    if vector is None:
        return
    try:
        raw = base64.b64decode(vector.vector, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise _refuse(number, "vector.vector is not base64") from exc
    if len(raw) != 4 * vector.dim:
        raise _refuse(number, f"vector.vector holds {len(raw)} bytes, not 4 × dim {vector.dim}")


def _check_zone(number: int, name: str) -> None:
    try:
        check_time_zone(name)
    except DomainError as exc:
        raise _refuse(number, exc.message) from exc


def read_document(lines: Iterable[bytes | str]) -> Document:
    """Parse and check a whole export; raises :class:`InvalidExport` on the first fault."""
    document: Document | None = None
    ended: End | None = None
    refs: dict[int, int] = {}  # ref → the line it is on
    seen: Counter[str] = Counter()
    number = 0
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        if ended is not None:
            raise _refuse(number, "a line after the end line")
        try:
            value = json.loads(raw)
        except ValueError as exc:
            raise _refuse(number, "not a JSON object") from exc
        if document is None:
            _check_header(number, value)
        try:
            line = LINE.validate_python(value)
        except ValidationError as exc:
            raise _refuse(number, _first_error(exc)) from exc
        if isinstance(line, Header):
            if document is not None:
                raise _refuse(number, "a second header line")
            document = Document(header=line)
            continue
        assert document is not None  # the first line was checked to be the header
        if isinstance(line, End):
            ended = line
            continue
        seen[line.kind] += 1
        if isinstance(line, Person):
            if document.person is not None:
                raise _refuse(number, "a second person line")
            if line.time_zone is not None:
                _check_zone(number, line.time_zone)
            document.person = line
        elif isinstance(line, Memory):
            if line.ref in refs:
                raise _refuse(
                    number, f"ref {line.ref} is already the memory of line {refs[line.ref]}"
                )
            _check_memory(number, line)
            refs[line.ref] = number
            document.memories.append(line)
        elif isinstance(line, Link):
            document.links.append(line)
        elif isinstance(line, MessageScore):
            document.message_scores.append(line)
        else:
            document.compressions.append(line)
    if document is None:
        raise InvalidExport("the export is empty: it has no header line")
    if ended is None:
        raise _refuse(number, "the export ends without its end line: it was cut short")
    counted = {kind: seen[kind] for kind in COUNTED}
    if {kind: ended.counts.get(kind, 0) for kind in COUNTED} != counted:
        raise InvalidExport(
            f"the end line counts {dict(ended.counts)}, but the export holds {counted}: "
            "lines are missing or were added"
        )
    _check_references(document, set(refs))
    return document


def _check_references(document: Document, refs: set[int]) -> None:
    """Links and supersession name memories of the export, never a memory itself."""
    for memory in document.memories:
        by = memory.superseded_by
        if by is not None and (by not in refs or by == memory.ref):
            raise InvalidExport(f"memory {memory.ref} is superseded by {by}, no other memory")
    for link in document.links:
        if link.a not in refs or link.b not in refs or link.a == link.b:
            raise InvalidExport(f"a link names {link.a} and {link.b}: two memories it must hold")
    pairs = Counter((min(k.a, k.b), max(k.a, k.b)) for k in document.links)
    if doubled := [pair for pair, n in pairs.items() if n > 1]:
        raise InvalidExport(f"memories {doubled[0]} are linked twice")
    positions = Counter((s.conversation_id, s.message_index) for s in document.message_scores)
    if doubled_scores := [key for key, n in positions.items() if n > 1]:
        conversation, index = doubled_scores[0]
        raise InvalidExport(f"message {index} of conversation {conversation!r} is scored twice")
