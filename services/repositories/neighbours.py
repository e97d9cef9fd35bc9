"""The memories said just before and after given memories (session continuity).

``AroundHits`` says which BM25 hits are anchors and how far to look around them. On
PostgreSQL the BM25 statement reads their neighbours itself (bm25_sql.py), saving a
round trip; on SQLite ``NeighbourRepository.around`` walks them in a statement of its
own. ``neighbours_from_rows`` turns the rows of either into ``Neighbour``s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    CompoundSelect,
    Select,
    String,
    bindparam,
    literal,
    or_,
    select,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncSession

from models import UserMemory
from services.repositories.memories import MemorySketch


@dataclass(frozen=True)
class Anchor:
    """A memory whose neighbours are wanted."""

    id: int
    created_at: datetime
    conversation_id: str


@dataclass(frozen=True)
class AroundHits:
    """Which lexical hits lend their neighbours, and which neighbours (session continuity,
    seed 004 §4.2; services/recall/ranking/continuity.py): the ``anchors`` best-scored hits whose
    score is at least ``min_relevance`` of the best, and up to ``radius`` memories on
    each side of each, within ``window`` of it."""

    anchors: int
    min_relevance: float
    radius: int
    window: timedelta

    def pick(self, scored: Sequence[tuple[float, MemorySketch]]) -> list[Anchor]:
        """The anchors among ``scored`` (score, hit) pairs, best first. The BM25
        statement picks the same on PostgreSQL (services/repositories/statements/bm25_sql.py)."""
        best = max((score for score, _ in scored), default=0.0) or 1.0
        in_conversation = [(s, h) for s, h in scored if h.conversation_id is not None]
        ranked = sorted(in_conversation, key=lambda pair: (-pair[0], -pair[1].id))
        return [
            Anchor(hit.id, hit.created_at, hit.conversation_id)
            for score, hit in ranked[: self.anchors]
            if score > 0 and score / best >= self.min_relevance and hit.conversation_id
        ]


@dataclass(frozen=True)
class Neighbour:
    """A memory ``distance`` places before (negative) or after (positive) its anchor."""

    anchor_id: int
    memory_id: int
    distance: int
    sketch: MemorySketch  # its ranking columns, read by the same scan


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
        current_only: bool = False,
        after: bool = True,
    ) -> list[Neighbour]:
        """Up to ``radius`` memories on each side of every anchor, in one statement
        (``after`` False: only those said before it).

        A neighbour has the anchor's ``source`` (or both have none) and was created within
        ``window`` of it; order is (created_at, id), the order a conversation was told in.
        Each side is a range scan of the index over the window (both ends bound, so the
        planner never walks the user's whole history) with a LIMIT. ``current_only``
        skips superseded memories (a filter on the rows of that scan).
        """
        if not anchors or radius < 1:
            return []
        params: dict[str, object] = {"user_id": user_id}
        if types:
            params["types"] = list(types)
        for i, anchor in enumerate(anchors):
            params |= {
                f"id_{i}": anchor.id,
                f"at_{i}": anchor.created_at,
                f"lo_{i}": anchor.created_at - window,
                f"hi_{i}": anchor.created_at + window,
                f"conversation_{i}": anchor.conversation_id,
            }
        statement = _statement(len(anchors), radius, bool(types), current_only, after)
        rows = await self.session.execute(statement, params)
        return neighbours_from_rows(
            (
                int(row.anchor_id),
                bool(row.before),
                MemorySketch(
                    int(row.id),
                    row.content,
                    row.importance_score,
                    row.created_at,
                    row.conversation_id,
                    row.memory_type,
                    row.role,
                ),
            )
            for row in rows
        )


def neighbours_from_rows(rows: Iterable[tuple[int, bool, MemorySketch]]) -> list[Neighbour]:
    """(anchor id, before?, neighbour) rows in any order → neighbours with their
    distance: each side nearest first in (created_at, id) order."""
    ranked: dict[tuple[int, bool], list[MemorySketch]] = {}
    for anchor_id, before, sketch in rows:
        ranked.setdefault((anchor_id, before), []).append(sketch)
    found: list[Neighbour] = []
    for (anchor_id, before), side in ranked.items():
        side.sort(key=lambda m: (m.created_at, m.id), reverse=before)  # nearest first
        sign = -1 if before else 1
        found += [
            Neighbour(anchor_id, sketch.id, sign * place, sketch)
            for place, sketch in enumerate(side, start=1)
        ]
    return found


@lru_cache(maxsize=128)
def _statement(
    anchors: int, radius: int, with_types: bool, current_only: bool, after: bool = True
) -> CompoundSelect[Any]:
    """The UNION ALL of every side's keyset walk, with bound parameters.

    Built once per shape and reused, so SQLAlchemy's compiled cache is hit: building ten
    sub-selects per recall would cost more than running them.
    """
    return union_all(
        *[
            _side(i, before, radius, with_types, current_only)
            for i in range(anchors)
            for before in ((True, False) if after else (True,))
        ]
    )


def _side(i: int, before: bool, radius: int, with_types: bool, current_only: bool) -> Select[Any]:
    m = UserMemory
    at = bindparam(f"at_{i}", type_=m.created_at.type)
    anchor_id = bindparam(f"id_{i}", type_=BigInteger())
    if before:
        bound = m.created_at.between(bindparam(f"lo_{i}", type_=m.created_at.type), at)
        position = or_(m.created_at < at, m.id < anchor_id)
        order = (m.created_at.desc(), m.id.desc())
    else:
        bound = m.created_at.between(at, bindparam(f"hi_{i}", type_=m.created_at.type))
        position = or_(m.created_at > at, m.id > anchor_id)
        order = (m.created_at.asc(), m.id.asc())
    stmt = select(
        m.id,
        m.created_at,
        m.content,
        m.importance_score,
        m.conversation_id,
        m.memory_type,
        m.role,
    ).where(
        m.user_id == bindparam("user_id"),
        bound,
        position,
        m.id != anchor_id,
        m.conversation_id == bindparam(f"conversation_{i}", type_=String()),
    )
    if with_types:
        stmt = stmt.where(m.memory_type.in_(bindparam("types", expanding=True)))
    if current_only:
        stmt = stmt.where(m.superseded_by_id.is_(None))
    side = stmt.order_by(*order).limit(radius).subquery()
    return select(
        anchor_id.label("anchor_id"),
        literal(before).label("before"),
        side.c.id,
        side.c.created_at,
        side.c.content,
        side.c.importance_score,
        side.c.conversation_id,
        side.c.memory_type,
        side.c.role,
    )
