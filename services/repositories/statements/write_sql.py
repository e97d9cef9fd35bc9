"""The add path's statements, built once per dialect with their values bound at execution.

A single add (``MemoryService.add``) runs about fifteen statements. Built per call, each
SQLAlchemy construct cost its expression building, its cache key and, for an ORM
statement, the ORM's compile step before the database saw it. Built once, a statement
here runs through ``driver_sql`` (the driver's own SQL on PostgreSQL, compiled once), or,
where the ORM must load objects, through ``session.execute`` with a cached statement.
With the array INSERTs of services/repositories/dialect/bulk.py, an add's CPU in the event loop
went from 9.1 to 4.0 ms (py-spy at 250 Hz, 800 adds on the bench's tenant-10k,
PostgreSQL), and an add from 19.2 to 14.8 ms (p50, 300 adds, old and new code run
alternately, two rounds; /tmp/scratch/addparts.py).

Lists are bound as one value (an array on PostgreSQL, an expanding ``IN`` on SQLite:
dialect.one_of_bound), so the text of every statement here is fixed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, cast

from sqlalchemy import (
    Insert,
    Integer,
    Select,
    String,
    Table,
    Update,
    bindparam,
    func,
    select,
    text,
    update,
)
from sqlalchemy.sql.elements import ColumnElement, TextClause

from models import MemoryAssociation, MemoryTerm, MemoryTermStat, MemoryUser, UserMemory
from services.repositories.dialect.seam import group_key, one_of_bound, upsert_construct

# Not "user_id": an INSERT or UPDATE reserves its columns' names for their own values.
_OWNER = bindparam("owner", type_=String())


def _table(model: Any) -> Table:
    return cast(Table, model.__table__)


@lru_cache(maxsize=4)
def by_hashes(dialect: str) -> Select[UserMemory]:
    """The user's memories (ORM objects) holding any of ``hashes``."""
    m = UserMemory
    return select(m).where(m.user_id == _OWNER, one_of_bound(dialect, m.content_hash, "hashes"))


@lru_cache(maxsize=4)
def most_held(dialect: str) -> Select[tuple[int]]:
    """Memory ids holding at least ``need`` of ``terms``, most held first, then newest,
    at most ``limit`` (SearchRepository.most_held)."""
    t = MemoryTerm
    memory_id = group_key(t.memory_id)
    held = func.count()
    return (
        select(memory_id)
        .where(t.user_id == _OWNER, one_of_bound(dialect, t.term, "terms"))
        .group_by(memory_id)
        .having(held >= bindparam("need", type_=Integer()))
        .order_by(held.desc(), memory_id.desc())
        .limit(bindparam("limit", type_=Integer()))
    )


@lru_cache(maxsize=8)
def grouped_postings(dialect: str, key: str) -> Select[Any]:
    """The user's postings whose ``key`` column (``term`` or ``memory_id``) is one of
    ``keys``: on PostgreSQL one row and one array of the other column per key (asyncpg
    decodes the arrays in C, where a row per posting cost a Python tuple and a set insert
    each); on SQLite a row per posting."""
    t = MemoryTerm
    by = t.term if key == "term" else t.memory_id
    other = t.memory_id if key == "term" else t.term
    where = (t.user_id == _OWNER, one_of_bound(dialect, by, "keys"))
    if dialect == "postgresql":
        return cast("Select[Any]", select(by, func.array_agg(other)).where(*where).group_by(by))
    return cast("Select[Any]", select(by, other).where(*where))


@lru_cache(maxsize=4)
def add_frequencies(dialect: str) -> Insert | TextClause:
    """Atomically add to terms' document frequencies, rows in term order.

    PostgreSQL: the terms and their counts as two arrays, one upsert. SQLite: the same
    upsert, executed once per row (``term``, ``df`` and ``user_id`` in each row).
    """
    if dialect == "postgresql":
        return text(
            "INSERT INTO memory_term_stats (user_id, term, df) "
            "SELECT :owner, u.term, u.df "
            "FROM unnest(CAST(:terms AS VARCHAR[]), CAST(:dfs AS INTEGER[])) AS u(term, df) "
            "ON CONFLICT (user_id, term) DO UPDATE SET df = memory_term_stats.df + excluded.df"
        )
    st = _table(MemoryTermStat)
    stmt = upsert_construct(dialect)(st)
    return cast(
        Insert,
        stmt.on_conflict_do_update(
            index_elements=[st.c.user_id, st.c.term], set_={"df": st.c.df + stmt.excluded.df}
        ),
    )


def link_count() -> ColumnElement[int]:
    """A memory's links (correlated to the ``user_memories`` row being updated): two
    index-served counts, as a first and as a second member, instead of one OR neither
    index serves."""
    m = _table(UserMemory).c
    a = MemoryAssociation
    as_first = (
        select(func.count()).where(a.user_id == m.user_id, a.memory_id_a == m.id).scalar_subquery()
    )
    as_second = (
        select(func.count()).where(a.user_id == m.user_id, a.memory_id_b == m.id).scalar_subquery()
    )
    return as_first + as_second


@lru_cache(maxsize=4)
def refresh_link_counts(dialect: str) -> Update:
    """Set ``associated_count`` from the links of the user's memories ``ids``; only rows
    whose count changed are written (most refreshes change nothing)."""
    m = _table(UserMemory).c
    count = link_count()
    return (
        update(_table(UserMemory))
        .where(m.user_id == _OWNER, one_of_bound(dialect, m.id, "ids"), m.associated_count != count)
        .values(associated_count=count)
    )


@lru_cache(maxsize=4)
def bump_user(dialect: str) -> Insert:
    """Atomically add ``count`` memories of total length ``length`` to the user's row."""
    u = _table(MemoryUser)
    at = bindparam("at", type_=u.c.updated_at.type)
    stmt = upsert_construct(dialect)(u).values(
        user_id=_OWNER,
        memory_count=bindparam("count", type_=Integer()),
        total_doc_length=bindparam("length", type_=Integer()),
        write_version=0,  # a row made here is written by lock_user's caller first anyway
        created_at=at,
        updated_at=at,
    )
    return cast(
        Insert,
        stmt.on_conflict_do_update(
            index_elements=[u.c.user_id],
            set_={
                "memory_count": u.c.memory_count + stmt.excluded.memory_count,
                "total_doc_length": u.c.total_doc_length + stmt.excluded.total_doc_length,
                "updated_at": stmt.excluded.updated_at,
            },
        ),
    )


@lru_cache(maxsize=4)
def lock_user(dialect: str) -> Insert:
    """Row-lock the user's ``memory_users`` row, creating it for a new user, and add 1 to
    its ``write_version``.

    The update takes the row lock on PostgreSQL as the former ``DO UPDATE … WHERE false``
    did, and counts the write in the same transaction, so a cache keyed by the version
    (services/context/assembly/knowledge_cache.py) sees every committed write. ``updated_at``
    keeps the last change of the counts.

    A new row's version starts at ``first_version``, a random number
    (MemoryRepository.lock_user): a person erased and then written again must not count
    1, 2, 3 … anew, or a recall cached under their old version 3 in some process would be
    served again.
    """
    u = _table(MemoryUser)
    at = bindparam("at", type_=u.c.updated_at.type)
    stmt = upsert_construct(dialect)(u).values(
        user_id=_OWNER,
        memory_count=0,
        total_doc_length=0,
        write_version=bindparam("first_version", type_=u.c.write_version.type),
        created_at=at,
        updated_at=at,
    )
    return cast(
        Insert,
        stmt.on_conflict_do_update(
            index_elements=[u.c.user_id],
            set_={"write_version": u.c.write_version + 1},
        ),
    )


@lru_cache(maxsize=4)
def record_mention() -> Update:
    """Atomic ``+ times`` of one memory's mention and frequency counts: said again."""
    m = _table(UserMemory).c
    times = bindparam("times", type_=Integer())
    at = bindparam("at", type_=m.updated_at.type)
    return (
        update(_table(UserMemory))
        .where(m.user_id == _OWNER, m.id == bindparam("memory_id", type_=m.id.type))
        .values(
            mention_count=m.mention_count + times,
            frequency_count=m.frequency_count + times,
            last_mentioned_at=at,
            updated_at=at,
        )
    )


@lru_cache(maxsize=1)
def lock_memories() -> Select[tuple[int]]:
    """Row-lock the user's memories ``ids`` in id order (PostgreSQL): the rows are
    locked as the sort returns them (MemoryRepository.lock_memories)."""
    m = _table(UserMemory).c
    return (
        select(m.id)
        .where(m.user_id == _OWNER, one_of_bound("postgresql", m.id, "ids"))
        .order_by(m.id)
        .with_for_update(key_share=True)
    )
