"""SQL for links between memories and the impact counts derived from them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import and_, delete, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from models import MemoryAssociation, UserMemory
from services.repositories.dialect import driver_sql
from services.repositories.dialect.bulk import ROWS_PER_INSERT, insert_rows
from services.repositories.dialect.seam import dialect_of
from services.repositories.statements import write_sql


class AssociationRepository:
    """Reads and writes ``memory_associations`` for one session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def upsert(
        self,
        user_id: str,
        first: int,
        second: int,
        *,
        kind: str,
        weight: float,
        shared_topics: Sequence[str],
        now: datetime,
    ) -> MemoryAssociation:
        """Create the pair, or upgrade it (an explicit link outranks a topic link)."""
        a, b = sorted((first, second))
        existing = await self.session.get(MemoryAssociation, (user_id, a, b))
        if existing is None:
            existing = MemoryAssociation(
                user_id=user_id,
                memory_id_a=a,
                memory_id_b=b,
                kind=kind,
                weight=weight,
                shared_topics=list(shared_topics),
                created_at=now,
            )
            self.session.add(existing)
        else:
            if kind == "explicit":
                existing.kind = kind
            existing.weight = max(existing.weight, weight)
            existing.shared_topics = sorted(set(existing.shared_topics) | set(shared_topics))
        await self.session.flush()
        return existing

    async def add_topic_links(
        self, user_id: str, memory_id: int, shared: Mapping[int, Sequence[str]], now: datetime
    ) -> None:
        """Link a memory to others by shared topics: one bulk INSERT for the new pairs.

        A pair that already exists (an explicit link kept across a content edit) only
        gains the shared topics.
        """
        if not shared:
            return
        a = MemoryAssociation
        others = list(shared)
        existing = await self.session.execute(
            select(a).where(
                a.user_id == user_id,
                or_(
                    and_(a.memory_id_a == memory_id, a.memory_id_b.in_(others)),
                    and_(a.memory_id_b == memory_id, a.memory_id_a.in_(others)),
                ),
            )
        )
        seen: set[int] = set()
        for link in existing.scalars():
            other = link.memory_id_b if link.memory_id_a == memory_id else link.memory_id_a
            seen.add(other)
            link.shared_topics = sorted(set(link.shared_topics) | set(shared[other]))
        rows = [
            {
                "user_id": user_id,
                "memory_id_a": min(memory_id, other),
                "memory_id_b": max(memory_id, other),
                "kind": "topic",
                "weight": float(len(topics)),
                "shared_topics": sorted(topics),
                "created_at": now,
            }
            for other, topics in shared.items()
            if other not in seen
        ]
        if rows:
            await self.session.execute(insert(a), rows)
        await self.session.flush()

    async def insert_topic_links(self, rows: Sequence[dict[str, Any]]) -> None:
        """Insert new topic links in bulk (pairs known not to exist yet)."""
        await insert_rows(self.session, MemoryAssociation, rows)

    async def for_memory(self, user_id: str, memory_id: int) -> list[MemoryAssociation]:
        """Every link touching a memory."""
        a = MemoryAssociation
        result = await self.session.execute(
            select(a)
            .where(
                a.user_id == user_id, or_(a.memory_id_a == memory_id, a.memory_id_b == memory_id)
            )
            .order_by(a.memory_id_a, a.memory_id_b)
        )
        return list(result.scalars())

    async def neighbours(self, user_id: str, memory_id: int) -> list[int]:
        """Ids linked to a memory."""
        return [
            link.memory_id_b if link.memory_id_a == memory_id else link.memory_id_a
            for link in await self.for_memory(user_id, memory_id)
        ]

    async def refresh_counts(self, user_id: str, ids: Sequence[int]) -> None:
        """Set associated_count from the links for these memories of one user."""
        statement = write_sql.refresh_link_counts(dialect_of(self.session))
        for start in range(0, len(ids), ROWS_PER_INSERT):
            params = {"owner": user_id, "ids": list(ids[start : start + ROWS_PER_INSERT])}
            await driver_sql.execute(self.session, statement, params)

    async def refresh_range(self, where: ColumnElement[bool]) -> None:
        """Set associated_count from the links for every memory matching ``where``;
        only rows whose count changed are written (most refreshes change nothing)."""
        count = write_sql.link_count()
        await self.session.execute(
            update(UserMemory)
            .where(where, UserMemory.associated_count != count)
            .values(associated_count=count)
            .execution_options(synchronize_session=False)
        )

    async def delete_topic_links(self, user_id: str, memory_id: int) -> None:
        """Drop a memory's topic links (its content changed); explicit links stay."""
        a = MemoryAssociation
        await self.session.execute(
            delete(a).where(
                a.user_id == user_id,
                a.kind == "topic",
                or_(a.memory_id_a == memory_id, a.memory_id_b == memory_id),
            )
        )
