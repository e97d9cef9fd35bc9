"""SQL for rebuilding the inverted index after the analyzer changed (a new stemmer,
stopword list or n-gram rule): postings and lengths are rewritten, nothing else."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from models import MemoryTerm, MemoryTermStat, MemoryUser, UserMemory


class ReindexRepository:
    """Keyset walks over users and memories, and the index rewrites, for one session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def user_ids(self, after: str | None, limit: int) -> list[str]:
        """User ids in order, after ``after``."""
        stmt = select(MemoryUser.user_id).order_by(MemoryUser.user_id).limit(limit)
        if after is not None:
            stmt = stmt.where(MemoryUser.user_id > after)
        return [str(u) for u in (await self.session.execute(stmt)).scalars()]

    async def count(self, user_id: str | None) -> int:
        """Memories of one user, or of everyone."""
        query = select(func.count()).select_from(UserMemory)
        if user_id is not None:
            query = query.where(UserMemory.user_id == user_id)
        return int((await self.session.execute(query)).scalar_one())

    async def contents(self, user_id: str, after_id: int, limit: int) -> list[tuple[int, str]]:
        """(id, content) of the user's memories with id > ``after_id``, in id order."""
        m = UserMemory
        stmt = (
            select(m.id, m.content)
            .where(m.user_id == user_id, m.id > after_id)
            .order_by(m.id)
            .limit(limit)
        )
        return [(int(i), str(c)) for i, c in await self.session.execute(stmt)]

    async def contents_of(self, user_id: str, ids: Sequence[int]) -> list[tuple[int, str]]:
        """(id, content) of these memories of the user that still exist."""
        m = UserMemory
        stmt = select(m.id, m.content).where(m.user_id == user_id, m.id.in_(list(ids)))
        return [(int(i), str(c)) for i, c in await self.session.execute(stmt)]

    async def lock_user(self, user_id: str) -> None:
        """Hold the user's ``memory_users`` row, as every write of the user's memories does
        first (MemoryRepository.lock_user): a batch then sees no memory change under
        it, and its frequency updates cannot deadlock with an add's (PostgreSQL; SQLite
        serialises writers at BEGIN IMMEDIATE and renders no row lock)."""
        row = select(MemoryUser.user_id).where(MemoryUser.user_id == user_id)
        await self.session.execute(row.with_for_update(key_share=True))

    async def drop_postings(self, user_id: str, memory_ids: Sequence[int]) -> None:
        """Delete these memories' postings and take them out of the document frequencies
        (the index is rewritten right after, and counts them in again)."""
        t, st = MemoryTerm, MemoryTermStat
        dropped = (
            select(t.term, func.count().label("n"))
            .where(t.user_id == user_id, t.memory_id.in_(memory_ids))
            .group_by(t.term)
            .subquery()
        )
        await self.session.execute(
            update(st)
            .where(st.user_id == user_id, st.term == dropped.c.term)
            .values(df=st.df - dropped.c.n)
            .execution_options(synchronize_session=False)
        )
        await self.session.execute(
            delete(MemoryTerm).where(
                MemoryTerm.user_id == user_id, MemoryTerm.memory_id.in_(memory_ids)
            )
        )

    async def set_doc_lengths(self, user_id: str, lengths: Mapping[int, int]) -> None:
        """Store each memory's new indexed length (one executemany)."""
        if not lengths:
            return
        await self.session.execute(
            update(UserMemory),
            [
                {"user_id": user_id, "id": memory_id, "doc_length": length}
                for memory_id, length in lengths.items()
            ],
        )

    async def refresh_frequencies(self, user_id: str) -> None:
        """Recount every term's document frequency from the user's postings, in SQL.

        Each batch keeps the counts right as it goes (:meth:`drop_postings`); this also
        repairs counts that drifted, such as those every reindex inflated before it did.
        Only rows whose count changed are written.
        """
        t, st = MemoryTerm, MemoryTermStat
        postings = (
            select(func.count()).where(t.user_id == st.user_id, t.term == st.term).scalar_subquery()
        )
        await self.session.execute(
            update(st)
            .where(st.user_id == user_id, st.df != postings)
            .values(df=postings)
            .execution_options(synchronize_session=False)
        )
        # A term no memory holds any more is no statistic but a trace of forgotten text.
        await self.session.execute(
            delete(st)
            .where(st.user_id == user_id, st.df <= 0)
            .execution_options(synchronize_session=False)
        )

    async def refresh_total_length(self, user_id: str) -> None:
        """Recompute the user's total indexed length from the memories, in SQL."""
        total = (
            select(func.coalesce(func.sum(UserMemory.doc_length), 0))
            .where(UserMemory.user_id == user_id)
            .scalar_subquery()
        )
        await self.session.execute(
            update(MemoryUser).where(MemoryUser.user_id == user_id).values(total_doc_length=total)
        )
