"""SQL of a person's export and import: their rows read in pages, and written back in bulk.

Every statement is scoped by ``user_id``; the derived rows (postings, term statistics,
topics) are not read here: the importer rebuilds them from the text through the search
repository, as a write of the text would.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from models import (
    CompressionRecord,
    MemoryAssociation,
    MemoryEmbedding,
    MemoryScoreHistory,
    MemoryUser,
    MessageScoreRecord,
    UserMemory,
)
from services.repositories.dialect.bulk import insert_rows
from services.repositories.memories import INSERT_ROWS_PER_STATEMENT


class PersonDataRepository:
    """Reads and writes one person's own rows for one session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def person(self, user_id: str) -> MemoryUser | None:
        """The person's row of aggregates (None for someone never seen)."""
        return await self.session.get(MemoryUser, user_id)

    async def memory_ids(self, user_id: str) -> list[int]:
        """Every memory id of the person, in id order."""
        m = UserMemory
        stmt = select(m.id).where(m.user_id == user_id).order_by(m.id)
        return [int(i) for i in (await self.session.execute(stmt)).scalars()]

    async def memories(self, user_id: str, ids: Sequence[int]) -> list[UserMemory]:
        """These memories of the person, in id order."""
        m = UserMemory
        stmt = select(m).where(m.user_id == user_id, m.id.in_(list(ids))).order_by(m.id)
        return list((await self.session.execute(stmt)).scalars())

    async def histories(
        self, user_id: str, ids: Sequence[int]
    ) -> dict[int, list[MemoryScoreHistory]]:
        """The score history of these memories, oldest snapshot first."""
        h = MemoryScoreHistory
        stmt = (
            select(h)
            .where(h.user_id == user_id, h.memory_id.in_(list(ids)))
            .order_by(h.memory_id, h.scored_at, h.id)
        )
        found: dict[int, list[MemoryScoreHistory]] = defaultdict(list)
        for row in (await self.session.execute(stmt)).scalars():
            found[row.memory_id].append(row)
        return found

    async def vectors(self, user_id: str, ids: Sequence[int]) -> dict[int, MemoryEmbedding]:
        """The vectors of these memories (a memory has at most one)."""
        e = MemoryEmbedding
        stmt = select(e).where(e.user_id == user_id, e.memory_id.in_(list(ids)))
        return {row.memory_id: row for row in (await self.session.execute(stmt)).scalars()}

    async def links(self, user_id: str) -> list[MemoryAssociation]:
        """Every link between two of the person's memories."""
        a = MemoryAssociation
        stmt = select(a).where(a.user_id == user_id).order_by(a.memory_id_a, a.memory_id_b)
        return list((await self.session.execute(stmt)).scalars())

    async def message_scores(self, user_id: str) -> list[MessageScoreRecord]:
        """The person's message scores, by conversation and position."""
        s = MessageScoreRecord
        stmt = (
            select(s).where(s.user_id == user_id).order_by(s.conversation_id, s.message_index, s.id)
        )
        return list((await self.session.execute(stmt)).scalars())

    async def compressions(self, user_id: str) -> list[CompressionRecord]:
        """The person's compression runs, in the order they ran."""
        c = CompressionRecord
        stmt = select(c).where(c.user_id == user_id).order_by(c.id)
        return list((await self.session.execute(stmt)).scalars())

    async def has_memories(self, user_id: str) -> bool:
        """Whether the person has any memory."""
        m = UserMemory
        stmt = select(m.id).where(m.user_id == user_id).limit(1)
        return (await self.session.execute(stmt)).first() is not None

    async def insert_memories(self, rows: Sequence[dict[str, Any]]) -> list[int]:
        """Insert memory rows; their new ids, in the rows' order."""
        stmt = insert(UserMemory).returning(UserMemory.id, sort_by_parameter_order=True)
        ids: list[int] = []
        for start in range(0, len(rows), INSERT_ROWS_PER_STATEMENT):
            chunk = list(rows[start : start + INSERT_ROWS_PER_STATEMENT])
            result = await self.session.execute(stmt, chunk)
            ids.extend(int(i) for i in result.scalars())
        return ids

    async def set_superseded(self, user_id: str, by: Mapping[int, int]) -> None:
        """Point each memory (key) at the memory that superseded it (value): one UPDATE
        each (supersession is rare: a person's corrections of a fact)."""
        m = UserMemory
        for memory_id, by_id in sorted(by.items()):
            await self.session.execute(
                update(m)
                .where(m.user_id == user_id, m.id == memory_id)
                .values(superseded_by_id=by_id)
                .execution_options(synchronize_session=False)
            )

    async def set_person(self, user_id: str, person: Mapping[str, Any]) -> None:
        """Give the person's row the times and settings of the exported one."""
        await self.session.execute(
            update(MemoryUser)
            .where(MemoryUser.user_id == user_id)
            .values(**person)
            .execution_options(synchronize_session=False)
        )

    async def set_time_zone(self, user_id: str, time_zone: str | None) -> None:
        """Store the person's time zone name (their row exists: the caller took it)."""
        await self.session.execute(
            update(MemoryUser)
            .where(MemoryUser.user_id == user_id)
            .values(time_zone=time_zone)
            .execution_options(synchronize_session=False)
        )

    async def insert(self, model: Any, rows: Sequence[dict[str, Any]]) -> None:
        """Insert rows of one of the person's tables in bulk."""
        await insert_rows(self.session, model, rows)
