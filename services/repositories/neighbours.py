"""The memories said just before and after given memories (session continuity)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Select, and_, literal, or_, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from models import UserMemory


@dataclass(frozen=True)
class Anchor:
    """A memory whose neighbours are wanted."""

    id: int
    created_at: datetime
    source: str | None


@dataclass(frozen=True)
class Neighbour:
    """A memory ``distance`` places before (negative) or after (positive) its anchor."""

    anchor_id: int
    memory_id: int
    distance: int


class NeighbourRepository:
    """Keyset walks along ``ix_user_memories_user_created`` (user_id, created_at, id)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def around(
        self,
        user_id: str,
        anchors: Sequence[Anchor],
        *,
        radius: int,
        window: timedelta,
        types: Sequence[str] = (),
    ) -> list[Neighbour]:
        """Up to ``radius`` memories on each side of every anchor, in one statement.

        A neighbour has the anchor's ``source`` (or both have none) and was created within
        ``window`` of it; order is (created_at, id), the order a conversation was told in.
        Each side is an index range scan with a LIMIT, so a user's other memories are
        never read.
        """
        if not anchors or radius < 1:
            return []
        sides = [
            self._side(user_id, anchor, before, radius, window, types)
            for anchor in anchors
            for before in (True, False)
        ]
        rows = await self.session.execute(union_all(*sides))
        ranked: dict[tuple[int, bool], list[tuple[datetime, int]]] = {}
        for row in rows:
            ranked.setdefault((int(row.anchor_id), bool(row.before)), []).append(
                (row.created_at, int(row.id))
            )
        found: list[Neighbour] = []
        for (anchor_id, before), side in ranked.items():
            side.sort(reverse=before)  # nearest first on both sides
            sign = -1 if before else 1
            found += [
                Neighbour(anchor_id, memory_id, sign * place)
                for place, (_, memory_id) in enumerate(side, start=1)
            ]
        return found

    @staticmethod
    def _side(
        user_id: str,
        anchor: Anchor,
        before: bool,
        radius: int,
        window: timedelta,
        types: Sequence[str],
    ) -> Select[tuple[int, bool, int, datetime]]:
        m = UserMemory
        if before:
            position = or_(
                m.created_at < anchor.created_at,
                and_(m.created_at == anchor.created_at, m.id < anchor.id),
            )
            bound = m.created_at >= anchor.created_at - window
            order = (m.created_at.desc(), m.id.desc())
        else:
            position = or_(
                m.created_at > anchor.created_at,
                and_(m.created_at == anchor.created_at, m.id > anchor.id),
            )
            bound = m.created_at <= anchor.created_at + window
            order = (m.created_at.asc(), m.id.asc())
        stmt = select(m.id, m.created_at).where(
            m.user_id == user_id, position, bound, m.source.is_not_distinct_from(anchor.source)
        )
        if types:
            stmt = stmt.where(m.memory_type.in_(types))
        side = stmt.order_by(*order).limit(radius).subquery()
        return select(
            literal(anchor.id).label("anchor_id"),
            literal(before).label("before"),
            side.c.id,
            side.c.created_at,
        )
