"""SQL for fact correction: slots' current memories and the superseded-by links."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from models import UserMemory


@dataclass(frozen=True)
class SlotRow:
    """A current memory of a slot, with what re-reading its value needs."""

    id: int
    content: str
    fact_slot: str
    created_at: datetime


class FactRepository:
    """Reads and writes the fact columns of ``user_memories``, scoped by ``user_id``."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def current_of_slots(
        self, user_id: str, slots: Sequence[str], exclude: Sequence[int] = ()
    ) -> list[SlotRow]:
        """The memories of these slots that nothing superseded (``ix_user_memories_user_slot``)."""
        if not slots:
            return []
        m = UserMemory
        stmt = select(m.id, m.content, m.fact_slot, m.created_at).where(
            m.user_id == user_id, m.fact_slot.in_(sorted(set(slots))), m.superseded_by_id.is_(None)
        )
        if exclude:
            stmt = stmt.where(m.id.not_in(list(exclude)))
        rows = await self.session.execute(stmt.order_by(m.id))
        return [SlotRow(int(i), str(c), str(s), at) for i, c, s, at in rows]

    async def profile(self, user_id: str, limit: int) -> list[tuple[int, str, str]]:
        """(id, fact slot, content) of the user's current fact memories, most important
        first: the person's profile (seed 001 §4.2 key user information)."""
        m = UserMemory
        stmt = (
            select(m.id, m.fact_slot, m.content)
            .where(m.user_id == user_id, m.fact_slot.is_not(None), m.superseded_by_id.is_(None))
            .order_by(m.importance_score.desc(), m.id.desc())
            .limit(limit)
        )
        return [(int(i), str(s), str(c)) for i, s, c in await self.session.execute(stmt)]

    async def supersede(self, user_id: str, replaced: Mapping[int, int], now: datetime) -> None:
        """Mark each old memory as superseded by its newer one, at ``now``.

        One statement executed for many parameter sets: a batch that replaces sixty facts
        pointing at sixty different newer memories is one round trip on asyncpg (its
        executemany pipelines), where it was an UPDATE per newer memory.
        """
        if not replaced:
            return
        table = cast(Table, UserMemory.__table__)
        stmt = (
            update(table)
            .where(table.c.user_id == bindparam("scope"), table.c.id == bindparam("old"))
            .values(superseded_by_id=bindparam("newer"), superseded_at=bindparam("at"))
        )
        await self.session.execute(
            stmt,
            [
                {"scope": user_id, "old": old, "newer": newer, "at": now}
                for old, newer in sorted(replaced.items())
            ],
        )

    async def repoint(self, user_id: str, from_id: int, to_id: int | None) -> list[int]:
        """Memories superseded by ``from_id`` now point at ``to_id`` (None: current again).

        Returns their ids. Used when ``from_id`` is deleted, restored or re-slotted.
        """
        m = UserMemory
        ids = await self.superseded_by(user_id, from_id)
        if ids:
            values: dict[str, object] = {"superseded_by_id": to_id}
            if to_id is None:
                values["superseded_at"] = None
            await self.session.execute(
                update(m)
                .where(m.user_id == user_id, m.id.in_(ids))
                .values(**values)
                .execution_options(synchronize_session=False)
            )
        return ids

    async def superseded_by(self, user_id: str, memory_id: int) -> list[int]:
        """The memories this one superseded, in id order."""
        m = UserMemory
        stmt = select(m.id).where(m.user_id == user_id, m.superseded_by_id == memory_id)
        return sorted(int(i) for i in (await self.session.execute(stmt)).scalars())

    async def superseded_slots(self, user_id: str, ids: Sequence[int]) -> dict[int, str]:
        """Of these memories, the superseded ones that have a slot: id → slot."""
        if not ids:
            return {}
        m = UserMemory
        rows = await self.session.execute(
            select(m.id, m.fact_slot).where(
                m.user_id == user_id,
                m.id.in_(list(ids)),
                m.superseded_by_id.is_not(None),
                m.fact_slot.is_not(None),
            )
        )
        return {int(i): str(s) for i, s in rows}

    async def clear(self, user_id: str, memory_id: int) -> None:
        """This memory is current again (its superseded link is removed)."""
        await self.session.execute(
            update(UserMemory)
            .where(UserMemory.user_id == user_id, UserMemory.id == memory_id)
            .values(superseded_by_id=None, superseded_at=None)
            .execution_options(synchronize_session=False)
        )

    async def successor(self, user_id: str, memory_id: int) -> int | None:
        """The memory that superseded this one (None: current, or not this user's)."""
        m = UserMemory
        found = await self.session.execute(
            select(m.superseded_by_id).where(m.user_id == user_id, m.id == memory_id)
        )
        value = found.scalar_one_or_none()
        return int(value) if value is not None else None
