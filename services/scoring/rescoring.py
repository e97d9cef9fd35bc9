"""RescoringService: keep every importance score fresh, set-based and in id batches."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from models import UserMemory
from services.core.settings import Settings
from services.repositories.associations import AssociationRepository
from services.repositories.memories import MemoryRepository
from services.repositories.statements import scoring_sql


class RescoringService:
    """Recount links and rescore one id range of memories (optionally one user's)."""

    def __init__(self, session: AsyncSession, settings: Settings) -> None:
        self.session = session
        self.settings = settings
        self.links = AssociationRepository(session)

    async def id_bounds(self, user_id: str | None) -> tuple[int, int] | None:
        """The smallest and largest memory id in scope, or None when there is none."""
        stmt = select(func.min(UserMemory.id), func.max(UserMemory.id))
        if user_id is not None:
            stmt = stmt.where(UserMemory.user_id == user_id)
        low, high = (await self.session.execute(stmt)).one()
        return None if low is None else (int(low), int(high))

    async def rescore_range(
        self, now: datetime, low: int, high: int, user_id: str | None
    ) -> tuple[int, int]:
        """Rescore ids in [low, high); returns (rows rescored, new escalations).

        History rows for scores that moved, then one UPDATE for the whole range. Link
        counts (impact) are kept exact by every write that adds or removes a link, so
        they are recounted here only when ``rescore_recount_links`` asks for it (a
        repair after manual edits of the database); the recount costs more than the
        rescoring itself.
        """
        where: ColumnElement[bool] = and_(UserMemory.id >= low, UserMemory.id < high)
        if user_id is not None:
            where = and_(where, UserMemory.user_id == user_id)
        await MemoryRepository(self.session).lock_in_id_order(where)
        if self.settings.rescore_recount_links:
            await self.links.refresh_range(where)
        await self.session.execute(scoring_sql.history_insert(self.settings, now, where, "rescore"))
        updated = await self.session.execute(scoring_sql.rescore_update(self.settings, now, where))
        count = int(getattr(updated, "rowcount", 0) or 0)
        if not count:
            return 0, 0
        escalated = (
            await self.session.execute(
                select(func.count())
                .select_from(UserMemory)
                .where(where, UserMemory.escalated_at == now)
            )
        ).scalar_one()
        return int(count), int(escalated)
