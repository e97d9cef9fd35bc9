"""Importing a person's export into a person who has no memories, in one unit of work.

``POST /v1/users/{user_id}/import`` and ``jarvis-memory users import USER FILE`` come
here. The document is read and checked whole first (services/access/person_reading.py);
then the memories go in with the values they had (texts, times, counts, scores, tags,
topics, fact slots and supersession, score history, vectors), and what the service
derives from a text (postings, term statistics, topic rows, lengths, content hashes) is
rebuilt by this service's analyzer, as a write would. Nothing is rescored: a memory's
importance is what it was, and the next scheduled rescoring moves it as it would have
moved the original.

Into a person who already has memories, an import is refused (409 ``user_not_empty``):
mixing two histories would merge repeats and reorder supersession in ways neither
document says. The target may be another user id than the exported one.
"""

from __future__ import annotations

import asyncio
import base64
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from models import (
    CompressionRecord,
    MemoryAssociation,
    MemoryEmbedding,
    MemoryScoreHistory,
    MessageScoreRecord,
)
from services.access.person_document import COUNTED, Memory
from services.access.person_reading import Document, read_document
from services.core.clock import Clock
from services.core.errors import InvalidExport, UserNotEmpty
from services.core.validation import check_user_id
from services.repositories.memories import MemoryRepository
from services.repositories.person_data import PersonDataRepository
from services.repositories.search import Postings, SearchRepository
from services.text import content_hash
from services.text.analysis import TextAnalyzer

# What forgets a user in one of the process's caches (as services/access/erasure.py).
Forget = Callable[[str], None]


@dataclass(frozen=True)
class Imported:
    """What an import wrote: lines per kind (``person_document.COUNTED``)."""

    user_id: str
    counts: dict[str, int]


@dataclass(frozen=True)
class Derived:
    """What the service derives from a memory's text for its index: what an import
    rebuilds (the stored tags, topics and scores are imported as they were)."""

    content_hash: str
    terms: Counter[str]

    @classmethod
    def of(cls, analyzer: TextAnalyzer, content: str) -> Derived:
        return cls(content_hash(content), analyzer.terms(content))

    @property
    def doc_length(self) -> int:
        return sum(self.terms.values())


def _memory_row(user_id: str, memory: Memory, analysis: Derived) -> dict[str, Any]:
    row = memory.model_dump(
        exclude={"kind", "ref", "metadata", "superseded_by", "history", "vector"}
    )
    row.update(
        user_id=user_id,
        meta=memory.metadata,
        content_hash=analysis.content_hash,
        doc_length=analysis.doc_length,
    )
    return row


class PersonImporter:
    """Imports people's exports over one session."""

    def __init__(
        self,
        session: AsyncSession,
        analyzer: TextAnalyzer,
        clock: Clock,
        caches: Sequence[Forget] = (),
    ) -> None:
        self.analyzer = analyzer
        self.clock = clock
        self.caches = list(caches)
        self.people = PersonDataRepository(session)
        self.memories = MemoryRepository(session)
        self.search = SearchRepository(session)

    async def import_lines(self, user_id: str, lines: Iterable[bytes | str]) -> Imported:
        """Import the export ``lines`` as ``user_id``'s data; what was written."""
        check_user_id(user_id)
        # Parsing and jieba are CPU-bound: both run before the user's row is taken, off
        # the event loop (a large export is seconds of work).
        document = await asyncio.to_thread(read_document, list(lines))
        analyses = await asyncio.to_thread(
            lambda: [Derived.of(self.analyzer, m.content) for m in document.memories]
        )
        _refuse_repeats(document.memories, analyses)
        now = self.clock()
        await self.memories.lock_user(user_id, now)
        if await self.people.has_memories(user_id):
            raise UserNotEmpty(
                f"user {user_id!r} already has memories: erase them first "
                "(DELETE /v1/users/{user_id}) or import into another user id"
            )
        await self._write(user_id, document, analyses, now)
        for forget in self.caches:
            forget(user_id)
        counts = {
            "person": int(document.person is not None),
            "memory": len(document.memories),
            "link": len(document.links),
            "message_score": len(document.message_scores),
            "compression": len(document.compressions),
        }
        return Imported(user_id, {kind: counts[kind] for kind in COUNTED})

    async def _write(
        self,
        user_id: str,
        document: Document,
        analyses: Sequence[Derived],
        now: datetime,
    ) -> None:
        memories = document.memories
        rows = [_memory_row(user_id, m, a) for m, a in zip(memories, analyses, strict=True)]
        ids = await self.people.insert_memories(rows)
        by_ref = {m.ref: memory_id for m, memory_id in zip(memories, ids, strict=True)}
        await self.people.set_superseded(
            user_id,
            {
                by_ref[m.ref]: by_ref[m.superseded_by]
                for m in memories
                if m.superseded_by is not None
            },
        )
        await self.search.index_many(
            user_id,
            [Postings(i, a.terms, a.doc_length) for i, a in zip(ids, analyses, strict=True)],
        )
        topics = {by_ref[m.ref]: list(dict.fromkeys(m.topics)) for m in memories}
        await self.search.add_topics_many(user_id, topics)
        await self.people.insert(MemoryScoreHistory, _history_rows(user_id, memories, by_ref))
        await self.people.insert(MemoryEmbedding, _vector_rows(user_id, memories, by_ref))
        await self.people.insert(
            MemoryAssociation,
            [
                {
                    "user_id": user_id,
                    "memory_id_a": min(by_ref[k.a], by_ref[k.b]),
                    "memory_id_b": max(by_ref[k.a], by_ref[k.b]),
                    "kind": k.link_kind,
                    "weight": k.weight,
                    "shared_topics": k.shared_topics,
                    "created_at": k.created_at,
                }
                for k in document.links
            ],
        )
        await self.people.insert(
            MessageScoreRecord,
            [
                s.model_dump(exclude={"kind"}) | {"user_id": user_id}
                for s in document.message_scores
            ],
        )
        await self.people.insert(
            CompressionRecord,
            [c.model_dump(exclude={"kind"}) | {"user_id": user_id} for c in document.compressions],
        )
        length = sum(a.doc_length for a in analyses)
        await self.memories.bump_user(user_id, now, len(ids), length)
        if document.person is not None:
            person = document.person
            await self.people.set_person(user_id, person.model_dump(exclude={"kind"}))


def _refuse_repeats(memories: Sequence[Memory], analyses: Sequence[Derived]) -> None:
    """Two memories of the same words in the same role's mouth are one memory to the
    service (a repeat merges): an export never holds both."""
    seen: dict[tuple[str, str], int] = {}
    for memory, analysis in zip(memories, analyses, strict=True):
        key = (analysis.content_hash, memory.role)
        if key in seen:
            raise InvalidExport(
                f"memories {seen[key]} and {memory.ref} hold the same words in the same role"
            )
        seen[key] = memory.ref


def _history_rows(
    user_id: str, memories: Sequence[Memory], by_ref: dict[int, int]
) -> list[dict[str, Any]]:
    return [
        snapshot.model_dump() | {"user_id": user_id, "memory_id": by_ref[m.ref]}
        for m in memories
        for snapshot in m.history
    ]


def _vector_rows(
    user_id: str, memories: Sequence[Memory], by_ref: dict[int, int]
) -> list[dict[str, Any]]:
    return [
        {
            "user_id": user_id,
            "memory_id": by_ref[m.ref],
            "model": m.vector.model,
            "dim": m.vector.dim,
            "vector": base64.b64decode(m.vector.vector),
            "embedded_at": m.vector.embedded_at,
            "source_hash": m.vector.source_hash,
        }
        for m in memories
        if m.vector is not None
    ]
