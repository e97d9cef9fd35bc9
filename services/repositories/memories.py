"""SQL for memories and their per-user aggregates, always scoped by ``user_id``."""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any, Literal, NamedTuple, cast

from sqlalchemy import (
    Row,
    Select,
    String,
    Table,
    Update,
    and_,
    bindparam,
    delete,
    or_,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.sql.elements import ColumnElement

from models import MemoryScoreHistory, MemoryUser, UserMemory
from services.core.settings import Settings
from services.repositories.dialect import driver_sql
from services.repositories.dialect.seam import dialect_of, one_of, one_of_bound, upsert_insert
from services.repositories.statements import scoring_sql, write_sql
from services.repositories.statements.recall_count_sql import COUNTED_COLUMNS, counted_recall

Order = Literal["importance", "recent"]
# Bound parameters per statement stay well under asyncpg's 32,767.
IDS_PER_STATEMENT = 5000
INSERT_ROWS_PER_STATEMENT = 500
# A stored content is unique per user by its normalized hash and whose words it is.
HashKey = tuple[str, str]  # (content_hash, role)


class MemorySketch(NamedTuple):
    """The columns ranking reads: cheap to load by the hundred (no JSON to decode; a
    named tuple, built in a third of a frozen dataclass's time, since recall builds
    one per candidate)."""

    id: int
    content: str
    importance_score: float
    created_at: datetime
    conversation_id: str | None  # continuity stays inside one conversation
    memory_type: str
    role: str  # whose words: "user" (the person's) or "assistant" (models.MEMORY_ROLES)


# MemorySketch's fields, in order: what every recall candidate query reads.
SKETCH_COLUMNS = (
    UserMemory.id,
    UserMemory.content,
    UserMemory.importance_score,
    UserMemory.created_at,
    UserMemory.conversation_id,
    UserMemory.memory_type,
    UserMemory.role,
)


class MemoryRepository:
    """Reads and writes ``user_memories`` and ``memory_users`` for one session."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session
        self.dialect = dialect_of(session)

    def _ids(self, ids: Sequence[int]) -> ColumnElement[bool]:
        return one_of(self.dialect, UserMemory.id, ids)

    def _scoped(self, user_id: str) -> Select[UserMemory]:
        # Every per-user query starts here: another user's memory is simply not found.
        return select(UserMemory).where(UserMemory.user_id == user_id)

    async def get(self, user_id: str, memory_id: int) -> UserMemory | None:
        """One memory of this user, or None."""
        result = await self.session.execute(self._scoped(user_id).where(UserMemory.id == memory_id))
        return result.scalar_one_or_none()

    async def get_by_id(self, memory_id: int) -> UserMemory | None:
        """Admin only: a memory by id, whoever owns it (ids are unique across users)."""
        result = await self.session.execute(select(UserMemory).where(UserMemory.id == memory_id))
        return result.scalar_one_or_none()

    async def get_many(self, user_id: str, ids: Sequence[int]) -> dict[int, UserMemory]:
        """Memories of this user by id (missing ids are absent)."""
        found: dict[int, UserMemory] = {}
        statement = _get_many_statement(self.dialect)
        for start in range(0, len(ids), IDS_PER_STATEMENT):
            chunk = list(ids[start : start + IDS_PER_STATEMENT])
            result = await self.session.execute(statement, {"owner": user_id, "ids": chunk})
            found.update((m.id, m) for m in result.scalars())
        return found

    async def get_by_hash(
        self, user_id: str, content_hash: str, role: str = "user"
    ) -> UserMemory | None:
        """The memory with this normalized content in this role's words, if said before."""
        result = await self.session.execute(
            self._scoped(user_id).where(
                UserMemory.content_hash == content_hash, UserMemory.role == role
            )
        )
        return result.scalar_one_or_none()

    async def sketches(
        self, user_id: str, ids: Sequence[int], *, current_only: bool = False
    ) -> dict[int, MemorySketch]:
        """Ranking columns of these memories of this user (missing ids are absent).

        ``current_only`` leaves superseded memories out (they count as missing).
        """
        m = UserMemory
        found: dict[int, MemorySketch] = {}
        for start in range(0, len(ids), IDS_PER_STATEMENT):
            stmt = select(*SKETCH_COLUMNS).where(
                m.user_id == user_id, self._ids(ids[start : start + IDS_PER_STATEMENT])
            )
            if current_only:
                stmt = stmt.where(m.superseded_by_id.is_(None))
            result = await self.session.execute(stmt)
            found.update((int(row[0]), MemorySketch(*row)) for row in result)
        return found

    async def said_between(
        self,
        user_id: str,
        start: datetime,
        end: datetime,
        limit: int,
        *,
        types: Sequence[str] = (),
        current_only: bool = False,
    ) -> dict[int, MemorySketch]:
        """Ranking columns of the user's memories said in [start, end), the earliest
        ``limit`` (a range scan of ix_user_memories_user_created): recall's candidates
        for a query that names a day or a week."""
        m = UserMemory
        stmt = select(*SKETCH_COLUMNS).where(
            m.user_id == user_id, m.created_at >= start, m.created_at < end
        )
        stmt = self._recall_filters(stmt, types, current_only)
        rows = await self.session.execute(stmt.order_by(m.created_at, m.id).limit(limit))
        return {int(row[0]): MemorySketch(*row) for row in rows}

    async def feeling_tagged(
        self,
        user_id: str,
        limit: int,
        *,
        types: Sequence[str] = (),
        current_only: bool = False,
    ) -> list[tuple[MemorySketch, list[str]]]:
        """The user's memories with an emotion score, strongest first, and their tags:
        recall's candidates for a query that asks about urgency or a feeling. Read by the
        user's rows (no index leads with the emotion score; such queries are few)."""
        m = UserMemory
        stmt = select(*SKETCH_COLUMNS, m.emotion_tags).where(
            m.user_id == user_id, m.emotion_score > 0
        )
        stmt = self._recall_filters(stmt, types, current_only)
        rows = await self.session.execute(
            stmt.order_by(m.emotion_score.desc(), m.id.desc()).limit(limit)
        )
        width = len(SKETCH_COLUMNS)
        return [(MemorySketch(*row[:width]), list(row[width] or [])) for row in rows]

    @staticmethod
    def _recall_filters(stmt: Any, types: Sequence[str], current_only: bool) -> Any:
        if types:
            stmt = stmt.where(UserMemory.memory_type.in_(list(types)))
        if current_only:
            stmt = stmt.where(UserMemory.superseded_by_id.is_(None))
        return stmt

    async def get_by_hashes(self, user_id: str, hashes: Sequence[str]) -> dict[HashKey, UserMemory]:
        """The user's memories holding any of these normalized contents, by (hash, role):
        the same words may be stored once as the person's and once as the assistant's."""
        found: dict[HashKey, UserMemory] = {}
        unique = sorted(set(hashes))
        statement = write_sql.by_hashes(self.dialect)
        for start in range(0, len(unique), IDS_PER_STATEMENT):
            params = {"owner": user_id, "hashes": unique[start : start + IDS_PER_STATEMENT]}
            result = await self.session.execute(statement, params)
            found.update(((m.content_hash, m.role), m) for m in result.scalars())
        return found

    async def insert_new(self, rows: Sequence[dict[str, Any]]) -> dict[HashKey, int]:
        """Insert memory rows in bulk; the ids by (content hash, role) of those that went in.

        ``ON CONFLICT DO NOTHING`` on ``(user_id, content_hash, role)``: a row whose content a
        concurrent transaction stored first is left out of the result (the caller merges
        it into the winner) instead of failing the whole batch.
        """
        if not rows:
            return {}
        make_insert = upsert_insert(self.session)
        stmt = (
            make_insert(UserMemory)
            .on_conflict_do_nothing(index_elements=["user_id", "content_hash", "role"])
            .returning(UserMemory.id, UserMemory.content_hash, UserMemory.role)
            # A None is sent as NULL, not left out: the ORM groups rows by the columns
            # they set, and rows with and without a fact slot or a last mention split a
            # batch of 1,000 into about 200 statements of 1 to 5 rows.
            .execution_options(render_nulls=True)
        )
        ids: dict[HashKey, int] = {}
        for start in range(0, len(rows), INSERT_ROWS_PER_STATEMENT):
            result = await self.session.execute(
                stmt, list(rows[start : start + INSERT_ROWS_PER_STATEMENT])
            )
            ids.update(((str(h), str(r)), int(i)) for i, h, r in result)
        return ids

    async def delete(self, memory: UserMemory) -> None:
        """Delete a memory; postings, topics, links and history cascade."""
        await self.session.execute(
            delete(UserMemory).where(
                UserMemory.user_id == memory.user_id, UserMemory.id == memory.id
            )
        )

    async def list_page(
        self,
        user_id: str,
        *,
        order: Order,
        limit: int,
        after: tuple[Any, int] | None,
        types: Sequence[str] = (),
        level: str | None = None,
        current_only: bool = False,
    ) -> list[UserMemory]:
        """A keyset page: ``after`` is the (sort key, id) of the previous page's last row.

        ``current_only`` leaves superseded memories out.
        """
        stmt = self._scoped(user_id)
        if current_only:
            stmt = stmt.where(UserMemory.superseded_by_id.is_(None))
        if types:
            stmt = stmt.where(UserMemory.memory_type.in_(types))
        if level:
            stmt = stmt.where(UserMemory.importance_level == level)
        key = UserMemory.importance_score if order == "importance" else UserMemory.created_at
        if after is not None:
            value, last_id = after
            stmt = stmt.where(or_(key < value, and_(key == value, UserMemory.id < last_id)))
        stmt = stmt.order_by(key.desc(), UserMemory.id.desc()).limit(limit)
        return list((await self.session.execute(stmt)).scalars())

    async def top_by_importance(
        self, user_id: str, limit: int, types: Sequence[str] = (), *, current_only: bool = False
    ) -> list[UserMemory]:
        """The most important memories (the empty-query recall)."""
        return await self.list_page(
            user_id,
            order="importance",
            limit=limit,
            after=None,
            types=types,
            current_only=current_only,
        )

    async def record_mention(
        self, user_id: str, memory_id: int, now: datetime, times: int = 1
    ) -> None:
        """Atomic +times: the user said this again (a Core UPDATE: a loaded memory is
        stale until read back, as :meth:`get_many` does)."""
        params = {"owner": user_id, "memory_id": memory_id, "times": times, "at": now}
        await driver_sql.execute(self.session, write_sql.record_mention(), params)

    async def record_recalls(self, user_id: str, ids: Sequence[int], now: datetime) -> None:
        """Atomic +1 for every recalled memory: concurrent recalls lose no count.

        One prebuilt statement per dialect (every tracked recall runs it), rows locked
        in id order first on PostgreSQL, as :meth:`lock_in_id_order` explains.
        """
        if not ids:
            return
        statement = _recall_count_statement(self.dialect)
        ordered = sorted(set(ids))  # chunks in id order too: locks are taken chunk by chunk
        for start in range(0, len(ordered), IDS_PER_STATEMENT):
            chunk = ordered[start : start + IDS_PER_STATEMENT]
            params = {"counted_user": user_id, "counted_ids": chunk, "counted_at": now}
            await driver_sql.execute(self.session, statement, params)

    async def count_recalls(
        self, settings: Settings, user_id: str, ids: Sequence[int], now: datetime
    ) -> dict[int, Row[Any]] | None:
        """:meth:`record_recalls` and :meth:`rescore` (reason ``recall``) of these memories.

        On PostgreSQL one statement (services/repositories/statements/recall_count_sql.py), which
        returns by id what the count wrote (``COUNTED_COLUMNS``, for
        :func:`refresh_from_row`). On SQLite the statements one by one, and None: a
        caller that needs the rows reads them back.
        """
        if self.dialect != "postgresql":
            await self.record_recalls(user_id, ids, now)
            await self.rescore(settings, now, user_id, ids, "recall")
            return None
        if not ids:
            return {}
        params = {"counted_user": user_id, "counted_ids": sorted(set(ids)), "counted_at": now}
        rows = await driver_sql.fetch_all(self.session, counted_recall(settings), params)
        return {row.id: row for row in rows}

    async def lock_in_id_order(self, where: ColumnElement[bool]) -> None:
        """Row-lock the matching memories in id order before updating them (PostgreSQL).

        Every writer that updates several memories in one transaction (a tracked recall,
        a rescoring batch) takes its row locks in the same order, so two of them wait
        for each other instead of deadlocking. SQLite needs nothing: its writers are
        serialised by BEGIN IMMEDIATE.

        Every such lock here is ``FOR NO KEY UPDATE``, the lock an UPDATE itself takes:
        it excludes the other writers, but not the ``KEY SHARE`` lock with which
        PostgreSQL checks a foreign key. ``FOR UPDATE`` excluded that too, so a
        transaction inserting rows that reference memories (vectors, links, score
        history) waited for every holder, while a holder could be waiting for it.
        """
        if self.dialect != "postgresql":
            return
        locked = select(UserMemory.id).where(where).order_by(UserMemory.id)
        await self.session.execute(locked.with_for_update(key_share=True))

    async def rescore(
        self, settings: Settings, now: datetime, user_id: str, ids: Sequence[int], reason: str
    ) -> None:
        """Recompute the scores of these memories with the same SQL as the scheduled job."""
        history, update_scores = scoring_sql.ids_rescoring(settings, self.dialect)
        for start in range(0, len(ids), IDS_PER_STATEMENT):
            chunk = ids[start : start + IDS_PER_STATEMENT]
            params = scoring_sql.ids_rescoring_params(user_id, chunk, now, reason)
            await driver_sql.execute(self.session, history, params)
            await driver_sql.execute(self.session, update_scores, params)

    async def history(self, memory: UserMemory, limit: int = 100) -> list[MemoryScoreHistory]:
        """The newest score snapshots of one memory."""
        h = MemoryScoreHistory
        result = await self.session.execute(
            select(h)
            .where(h.user_id == memory.user_id, h.memory_id == memory.id)
            .order_by(h.scored_at.desc(), h.id.desc())
            .limit(limit)
        )
        return list(result.scalars())

    async def escalations(
        self, user_id: str, include_acknowledged: bool, include_superseded: bool
    ) -> list[UserMemory]:
        """Memories that crossed into ``high``, newest crossing first."""
        stmt = self._scoped(user_id).where(UserMemory.escalated_at.is_not(None))
        if not include_acknowledged:
            stmt = stmt.where(UserMemory.escalation_acknowledged_at.is_(None))
        if not include_superseded:
            stmt = stmt.where(UserMemory.superseded_by_id.is_(None))
        stmt = stmt.order_by(UserMemory.escalated_at.desc(), UserMemory.id.desc())
        return list((await self.session.execute(stmt)).scalars())

    async def bump_user(self, user_id: str, now: datetime, count: int, length: int) -> None:
        """Atomically add to the user's memory count and total indexed length."""
        params = {"owner": user_id, "count": count, "length": length, "at": now}
        await driver_sql.execute(self.session, write_sql.bump_user(self.dialect), params)

    async def lock_user(self, user_id: str, now: datetime) -> None:
        """Hold the user's ``memory_users`` row (created for a new user, its times
        ``now``): step 1 of the locks every write of the user's memories takes.

        The order every writer follows on PostgreSQL, so that none waits for a lock
        while holding one another needs (``python -m bench.hammer`` looks for deadlocks):

        1. the user's row, before anything else: the writes of one user (adds, edits,
           deletes, links, reindex batches) run one after the other;
        2. every existing memory the write will change (:meth:`lock_memories`), read
           once the row is held, then locked in id order in one statement.

        Tracked counts and the rescoring job take no user row and lock their memories
        in id order too (:meth:`lock_in_id_order`), so a writer and they only wait for
        each other in one direction. Acknowledging an escalation changes nothing recall
        or context read and skips this. SQLite serialises every writer at BEGIN
        IMMEDIATE; there only the row is made.

        It also adds 1 to the user's ``write_version`` (:meth:`write_version`): every
        write of the user's memories (add, merge, edit, delete, link, supersede,
        restore, reindex) passes here, in its own transaction.
        """
        # A new row's version starts anywhere in [1, 2**40]: never again where an erased
        # person's old one stood (write_sql.lock_user).
        first = secrets.randbelow(2**40) + 1
        params = {"owner": user_id, "at": now, "first_version": first}
        await driver_sql.execute(self.session, write_sql.lock_user(self.dialect), params)

    async def lock_memories(self, user_id: str, ids: Iterable[int]) -> None:
        """Step 2 of a write's locks (:meth:`lock_user`): these memories, in id order
        (PostgreSQL)."""
        ordered = sorted(set(ids))
        if self.dialect != "postgresql" or not ordered:
            return
        params = {"owner": user_id, "ids": ordered}
        await driver_sql.fetch_all(self.session, write_sql.lock_memories(), params)

    async def write_version(self, user_id: str) -> int:
        """The user's write counter: + 1 by every committed write of their memories, from
        a random start (0 before the first write)."""
        stmt = select(MemoryUser.write_version).where(MemoryUser.user_id == user_id)
        found = (await self.session.execute(stmt)).scalar()
        return int(found or 0)

    async def time_zone(self, user_id: str) -> str | None:
        """The person's time zone name (None: UTC, or someone never seen)."""
        stmt = select(MemoryUser.time_zone).where(MemoryUser.user_id == user_id)
        found = (await self.session.execute(stmt)).scalar()
        return str(found) if found else None

    async def user_stats(self, user_id: str) -> MemoryUser | None:
        """The user's aggregates (None before their first memory)."""
        return await self.session.get(MemoryUser, user_id, populate_existing=True)


@lru_cache(maxsize=4)
def _get_many_statement(dialect: str) -> Select[UserMemory]:
    """One user's memories by id, built once per dialect (the ids bound at execution).

    Every recall loads its hits whole with this, and a tracked recall does so twice.
    Built per call, the ORM statement and its cache key cost a third of the load: 10
    ids of the bench's tenant-10k took 1.82 → 1.21 ms on PostgreSQL and 1.54 → 1.10 ms
    on SQLite (medians of 600, alternating in one process).
    """
    return (
        select(UserMemory)
        .where(
            UserMemory.user_id == bindparam("owner", type_=String()),
            one_of_bound(dialect, UserMemory.id, "ids"),
        )
        .execution_options(populate_existing=True)
    )


@lru_cache(maxsize=4)
def _recall_count_statement(dialect: str) -> Update:
    """``recall_count + 1`` for one user's memories by id, built once per dialect.

    Built per call as an ORM UPDATE after a separate ``SELECT … FOR UPDATE`` it was two
    round trips and most of a tracked recall's Python (pyinstrument at 10k memories per
    user). On PostgreSQL the rows are locked in id order by the sub-select
    (its LockRows node runs above the sort), then updated: one statement. SQLite's
    writers are serialised by BEGIN IMMEDIATE and need no lock.
    """
    table = cast(Table, UserMemory.__table__)
    t = table.c
    where: ColumnElement[bool]
    mine = and_(
        t.user_id == bindparam("counted_user", type_=String()),
        one_of_bound(dialect, t.id, "counted_ids"),
    )
    if dialect == "postgresql":
        locked = select(t.id).where(mine).order_by(t.id).with_for_update(key_share=True)
        where = t.id.in_(locked.scalar_subquery())
    else:
        where = mine
    return (
        update(table)
        .where(where)
        .values(
            recall_count=t.recall_count + 1,
            frequency_count=t.frequency_count + 1,
            last_recalled_at=bindparam("counted_at", type_=t.last_recalled_at.type),
        )
    )


def refresh_from_row(memory: UserMemory, row: Row[Any]) -> None:
    """Give ``memory`` what :meth:`MemoryRepository.count_recalls` wrote, as if loaded
    (not dirty)."""
    for name in COUNTED_COLUMNS:
        set_committed_value(memory, name, getattr(row, name))
