"""Exporting a person: everything the service holds of one user, as JSON Lines.

``GET /v1/users/{user_id}/export`` streams it and ``jarvis-memory users export USER``
writes it (GDPR article 20). The format: services/access/person_document.py.

The whole export reads one state of the database (``Database.snapshot``): a memory
written meanwhile is either in it with its links or not at all. Memories are read a
page at a time, so a person with 100,000 memories is streamed, not held in memory; only
their ids are (to name each memory by its position, ``ref``). Someone the service does
not know gets an export that holds nothing, as the truthful answer to "what do you hold
of me", not an error.
"""

from __future__ import annotations

import base64
from collections import Counter
from collections.abc import AsyncIterator, Mapping, Sequence

from models import MemoryAssociation, MemoryEmbedding, MemoryScoreHistory, UserMemory
from services.access.person_document import (
    COUNTED,
    FORMAT_VERSION,
    Compression,
    End,
    Header,
    Line,
    Link,
    Memory,
    MessageScore,
    Person,
    ScoreSnapshot,
    Vector,
    encode,
)
from services.core.clock import Clock
from services.core.db import Database
from services.core.validation import check_user_id
from services.repositories.person_data import PersonDataRepository

MEMORIES_PER_PAGE = 500
# The Memory fields that are columns of the same name (the rest are built below).
_MEMORY_COLUMNS = tuple(
    name
    for name in Memory.model_fields
    if name not in {"kind", "ref", "metadata", "superseded_by", "history", "vector"}
)


def _columns(row: object, line: type[Line], skip: Sequence[str] = ("kind",)) -> dict[str, object]:
    """The values of ``row``'s columns that ``line`` has a field of the same name for."""
    return {name: getattr(row, name) for name in line.model_fields if name not in skip}


def memory_line(
    memory: UserMemory,
    refs: Mapping[int, int],
    history: Sequence[MemoryScoreHistory],
    vector: MemoryEmbedding | None,
) -> Memory:
    """The export's line of one memory."""
    superseded_by = memory.superseded_by_id
    return Memory(
        ref=refs[memory.id],
        metadata=memory.meta,
        superseded_by=refs.get(superseded_by) if superseded_by is not None else None,
        history=[ScoreSnapshot.model_validate(_columns(h, ScoreSnapshot, ())) for h in history],
        vector=_vector(vector) if vector is not None else None,
        **{name: getattr(memory, name) for name in _MEMORY_COLUMNS},
    )


def _vector(row: MemoryEmbedding) -> Vector:
    encoded = base64.b64encode(row.vector).decode("ascii")
    return Vector(
        model=row.model,
        dim=row.dim,
        vector=encoded,
        embedded_at=row.embedded_at,
        source_hash=row.source_hash,
    )


def link_line(link: MemoryAssociation, refs: Mapping[int, int]) -> Link:
    """The export's line of one link, its ends named by ``ref`` (smaller first)."""
    a, b = sorted((refs[link.memory_id_a], refs[link.memory_id_b]))
    return Link(
        a=a,
        b=b,
        link_kind=link.kind,
        weight=link.weight,
        shared_topics=list(link.shared_topics),
        created_at=link.created_at,
    )


class PersonExporter:
    """Writes people's exports from one database."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock

    async def lines(self, user_id: str) -> AsyncIterator[bytes]:
        """The export of ``user_id``, line by line (each ending in a newline)."""
        check_user_id(user_id)
        counts: Counter[str] = Counter()

        def counted(line: Line) -> bytes:
            counts[str(type(line).model_fields["kind"].default)] += 1
            return encode(line)

        async with self.db.snapshot() as session:
            repo = PersonDataRepository(session)
            yield encode(Header(version=FORMAT_VERSION, user_id=user_id, exported_at=self.clock()))
            person = await repo.person(user_id)
            if person is not None:
                yield counted(Person.model_validate(_columns(person, Person)))
            ids = await repo.memory_ids(user_id)
            refs = {memory_id: ref for ref, memory_id in enumerate(ids, start=1)}
            for start in range(0, len(ids), MEMORIES_PER_PAGE):
                page = ids[start : start + MEMORIES_PER_PAGE]
                histories = await repo.histories(user_id, page)
                vectors = await repo.vectors(user_id, page)
                for memory in await repo.memories(user_id, page):
                    line = memory_line(
                        memory, refs, histories.get(memory.id, []), vectors.get(memory.id)
                    )
                    yield counted(line)
            links = sorted((link_line(k, refs) for k in await repo.links(user_id)), key=_ends)
            for link in links:
                yield counted(link)
            for score in await repo.message_scores(user_id):
                yield counted(MessageScore.model_validate(_columns(score, MessageScore)))
            for run in await repo.compressions(user_id):
                yield counted(Compression.model_validate(_columns(run, Compression)))
        yield encode(End(counts={kind: counts[kind] for kind in COUNTED}))


def _ends(link: Link) -> tuple[int, int]:
    return link.a, link.b
