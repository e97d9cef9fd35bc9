"""Typed helpers that build test data through the real services."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import delete
from sqlalchemy.ext.asyncio import AsyncSession

from models import MemoryTermStat, MemoryUser, UserMemory
from services import composition
from services.core.clock import Clock
from services.core.db import Database
from services.core.settings import Settings
from services.recall.recall_service import RecallHit
from services.remembering.memory_service import NewMemory
from services.text.analysis import TextAnalyzer


class Services:
    """Open a unit of work per call, like a request would, with the services the
    composition root builds from these settings (tests may swap ``settings``)."""

    def __init__(self, db: Database, settings: Settings, analyzer: TextAnalyzer, clock: Clock):
        self.db, self.settings, self.analyzer, self.clock = db, settings, analyzer, clock
        self._root: tuple[tuple[int, ...], composition.Services] | None = None

    @property
    def root(self) -> composition.Services:
        """The root's services over the current db, settings, analyzer and clock."""
        parts = (self.db, self.settings, self.analyzer, self.clock)
        key = tuple(id(p) for p in parts)
        if self._root is None or self._root[0] != key:
            self._root = (
                key,
                composition.Services(self.settings, self.db, self.analyzer, self.clock),
            )
        return self._root[1]

    async def add(
        self,
        user_id: str,
        content: str,
        *,
        created_at: datetime | None = None,
        **fields: Any,
    ) -> UserMemory:
        async with self.db.unit_of_work() as session:
            stored = await self.root.memories(session).add(
                user_id, NewMemory(content=content, created_at=created_at, **fields)
            )
            return stored.memory

    async def get(self, user_id: str, memory_id: int) -> UserMemory:
        async with self.db.unit_of_work() as session:
            return await self.root.memories(session).get(user_id, memory_id)

    async def recall(self, user_id: str, query: str, top_k: int = 5, **kw: Any) -> list[RecallHit]:
        async with self.db.unit_of_work() as session:
            return await self.root.recall(session).recall_memories(user_id, query, top_k, **kw)


class Counted:
    """A :class:`services.core.progress.Progress` that remembers what it was told."""

    def __init__(self) -> None:
        self.total: int | None = -1
        self.done = 0

    def start(self, total: int | None) -> None:
        self.total = total

    def advance(self, amount: int = 1) -> None:
        self.done += amount


async def delete_users(session: AsyncSession, *users: str) -> None:
    """Remove what tests with real commits wrote for ``users``: their memories (postings,
    topics, links and vectors go with them), their counters and their term statistics
    (a bulk delete does not lower document frequencies, so a later test's BM25 would
    weigh terms by memories that are gone)."""
    for table in (UserMemory, MemoryUser, MemoryTermStat):
        await session.execute(delete(table).where(table.user_id.in_(users)))
