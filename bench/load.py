"""Bulk loading: the rows MemoryService would write for a plan, inserted in large batches.

The service checks every statement for a near-duplicate against everything stored
before it, which is what a real ingest needs but not what loading a million-memory
database should wait for. This loader writes the rows the service writes for one
``add_many`` of the whole plan, in batches of ``BATCH_ROWS``: executemany on SQLite,
COPY on PostgreSQL:

- ``user_memories``: content, hash, type, emotion, topics, doc length and counts from
  ``TextAnalyzer`` and the replay (bench/replay.py); ids are assigned here, in
  creation order, exactly as the database would have assigned them to a lone writer;
- the fact columns (``fact_slot``, ``superseded_by_id``, ``superseded_at``) from
  ``extract_fact`` and the same order rule as the service's corrector
  (services/remembering/facts/resolve.py), over the created memories in creation order;
- ``memory_terms``, ``memory_term_stats``, ``memory_topics``, ``memory_associations``,
  ``memory_users`` and ``memory_score_history`` from the analyses and the replay;
- then the scores themselves with the service's own SQL (``scoring_sql.rescore_update``)
  over the tenant, in id batches of ``rescore_batch_size``.

``tests/bench/test_equivalence.py`` loads the same plan both ways and compares the rows.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import islice
from typing import Any

from sqlalchemy import Table, and_, func, select, text

from bench.plan import METADATA, SOURCE, Plan
from bench.replay import Replay, replay
from models import Base, UserMemory
from services.core.db import Database
from services.core.settings import Settings
from services.remembering.facts.resolve import SlotFact, supersessions
from services.remembering.facts.slots import extract_fact
from services.repositories.statements import scoring_sql

BATCH_ROWS = 10_000


@dataclass(frozen=True)
class LoadResult:
    """What one tenant's load wrote."""

    user_id: str
    memories: int
    statements: int
    first_id: int
    last_id: int
    rows: dict[str, int]


def _table(name: str) -> Table:
    return Base.metadata.tables[name]


def _batches(rows: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    it = iter(rows)
    while batch := list(islice(it, BATCH_ROWS)):
        yield batch


def _records(
    db: Database, table: Table, batch: list[dict[str, Any]]
) -> tuple[list[str], list[tuple[Any, ...]]]:
    """Column names and driver-level tuples, each value bound as SQLAlchemy would bind it."""
    names = list(batch[0])
    binders = [table.c[n].type._cached_bind_processor(db.engine.dialect) for n in names]
    records = [
        tuple(
            bind(row[n]) if bind is not None and row[n] is not None else row[n]
            for n, bind in zip(names, binders, strict=True)
        )
        for row in batch
    ]
    return names, records


async def _insert(db: Database, name: str, rows: Iterable[dict[str, Any]]) -> int:
    """Insert in batches straight through the driver (COPY on PostgreSQL, executemany on
    SQLite), one short transaction per batch; returns the row count."""
    table = _table(name)
    count = 0
    async with db.engine.connect() as conn:
        driver: Any = (await conn.get_raw_connection()).driver_connection
        for batch in _batches(rows):
            names, records = _records(db, table, batch)
            if db.dialect == "postgresql":
                await driver.copy_records_to_table(name, records=records, columns=names)
            else:
                marks = ", ".join("?" * len(names))
                sql = f"INSERT INTO {name} ({', '.join(names)}) VALUES ({marks})"
                await conn.exec_driver_sql(sql, records)
                await conn.commit()
            count += len(batch)
    return count


def _superseded(plan: Plan, first_id: int) -> tuple[dict[int, str], dict[int, int]]:
    """Each created memory's fact slot (by id), and old id → the id that superseded it."""
    slots: dict[int, str] = {}
    incoming: list[SlotFact] = []
    for statement, m, creates in zip(plan.statements, plan.memory_of, plan.creates, strict=True):
        fact = extract_fact(statement.content) if creates else None
        if fact is not None:
            slots[first_id + m] = fact.slot
            incoming.append(SlotFact(first_id + m, fact.slot, fact.value, statement.created_at))
    return slots, supersessions([], incoming)


def _memory_rows(
    user_id: str, plan: Plan, state: Replay, first_id: int, now: datetime
) -> Iterator[dict[str, Any]]:
    slots, replaced = _superseded(plan, first_id)
    for statement, analysis, m, creates in zip(
        plan.statements, plan.analyses, plan.memory_of, plan.creates, strict=True
    ):
        if not creates:
            continue
        s = state.states[m]
        yield {
            "id": first_id + m,
            "user_id": user_id,
            "content": statement.content,
            "content_hash": analysis.content_hash,
            "memory_type": statement.memory_type,
            "source": SOURCE,
            "metadata": METADATA,
            "created_at": statement.created_at,
            "updated_at": now,
            "frequency_count": s.frequency_count,
            "mention_count": s.mention_count,
            "recall_count": 0,
            "last_recalled_at": None,
            "last_mentioned_at": s.last_mentioned_at,
            "emotion_tags": analysis.emotion_tags,
            "emotion_score": analysis.emotion_score,
            "topics": analysis.topics,
            "associated_count": s.associated_count,
            "doc_length": analysis.doc_length,
            "importance_score": 0.0,
            "importance_level": "low",
            "frequency_score": 0.0,
            "recency_score": 0.0,
            "impact_score": 0.0,
            "scored_at": None,
            "escalated_at": None,
            "escalation_acknowledged_at": None,
            "fact_slot": slots.get(first_id + m),
            "superseded_by_id": replaced.get(first_id + m),
            "superseded_at": now if first_id + m in replaced else None,
        }


def _term_rows(user_id: str, plan: Plan, first_id: int) -> Iterator[dict[str, Any]]:
    for analysis, m, creates in zip(plan.analyses, plan.memory_of, plan.creates, strict=True):
        if creates:
            for term, tf in analysis.terms.items():
                yield {
                    "user_id": user_id,
                    "term": term,
                    "memory_id": first_id + m,
                    "tf": tf,
                    "doc_length": analysis.doc_length,
                }


def _term_stat_rows(user_id: str, plan: Plan) -> Iterator[dict[str, Any]]:
    counts = Counter(
        term
        for analysis, creates in zip(plan.analyses, plan.creates, strict=True)
        if creates
        for term in analysis.terms
    )
    for term, df in sorted(counts.items()):
        yield {"user_id": user_id, "term": term, "df": df}


def _topic_rows(user_id: str, plan: Plan, first_id: int) -> Iterator[dict[str, Any]]:
    for analysis, m, creates in zip(plan.analyses, plan.memory_of, plan.creates, strict=True):
        if creates:
            for topic in analysis.topics:
                yield {"user_id": user_id, "topic": topic, "memory_id": first_id + m}


def _link_rows(
    user_id: str, state: Replay, first_id: int, now: datetime
) -> Iterator[dict[str, Any]]:
    for link in state.links:
        yield {
            "user_id": user_id,
            "memory_id_a": first_id + link.older,
            "memory_id_b": first_id + link.newer,
            "kind": "topic",
            "weight": float(len(link.shared_topics)),
            "shared_topics": link.shared_topics,
            "created_at": now,
        }


def _history_rows(
    user_id: str, state: Replay, first_id: int, now: datetime
) -> Iterator[dict[str, Any]]:
    for entry in state.history:
        b = entry.breakdown
        yield {
            "user_id": user_id,
            "memory_id": first_id + entry.memory,
            "scored_at": now,
            "reason": entry.reason,
            "importance_score": b.score,
            "importance_level": b.level,
            "frequency_score": b.frequency,
            "recency_score": b.recency,
            "emotion_score": b.emotion,
            "impact_score": b.impact,
        }


async def next_memory_id(db: Database) -> int:
    """The id the database would give the next memory (max + 1: ids are never reused
    while the bench runs, since nothing is deleted)."""
    async with db.engine.connect() as conn:
        top = (await conn.execute(select(func.max(UserMemory.id)))).scalar()
    return int(top or 0) + 1


async def rescore_tenant(
    db: Database, settings: Settings, user_id: str, ids: Sequence[int], now: datetime
) -> None:
    """The service's scoring SQL over a tenant's rows, in id batches."""
    size = settings.rescore_batch_size
    for low in range(ids[0], ids[-1] + 1, size):
        where = and_(
            UserMemory.user_id == user_id, UserMemory.id >= low, UserMemory.id < low + size
        )
        async with db.unit_of_work() as session:
            await session.execute(scoring_sql.rescore_update(settings, now, where))


async def load_tenant(
    db: Database,
    settings: Settings,
    user_id: str,
    plan: Plan,
    now: datetime,
    state: Replay | None = None,
) -> LoadResult:
    """Write every row the service would write for ``plan`` (a new user) at ``now``.

    ``state`` is ``replay(plan, settings, now)``, passed in when it is already known.
    """
    if state is None:
        state = await asyncio.to_thread(replay, plan, settings, now)
    first_id = await next_memory_id(db)
    rows = {
        "user_memories": await _insert(
            db, "user_memories", _memory_rows(user_id, plan, state, first_id, now)
        ),
        "memory_terms": await _insert(db, "memory_terms", _term_rows(user_id, plan, first_id)),
        "memory_term_stats": await _insert(db, "memory_term_stats", _term_stat_rows(user_id, plan)),
        "memory_topics": await _insert(db, "memory_topics", _topic_rows(user_id, plan, first_id)),
        "memory_associations": await _insert(
            db, "memory_associations", _link_rows(user_id, state, first_id, now)
        ),
        "memory_score_history": await _insert(
            db, "memory_score_history", _history_rows(user_id, state, first_id, now)
        ),
    }
    total_length = sum(a.doc_length for a, c in zip(plan.analyses, plan.creates, strict=True) if c)
    user = {
        "user_id": user_id,
        "memory_count": plan.memories,
        "total_doc_length": total_length,
        "write_version": 1,  # one batch through the service is one write
        "created_at": now,
        "updated_at": now,
    }
    rows["memory_users"] = await _insert(db, "memory_users", [user])
    last_id = first_id + plan.memories - 1
    await rescore_tenant(db, settings, user_id, [first_id, last_id], now)
    if db.dialect == "postgresql":
        # Explicit ids do not advance the sequence; the service's next insert must not collide.
        async with db.engine.begin() as conn:
            await conn.execute(
                text("SELECT setval(pg_get_serial_sequence('user_memories', 'id'), :top)"),
                {"top": last_id},
            )
    return LoadResult(user_id, plan.memories, len(plan.statements), first_id, last_id, rows)


async def settle(db: Database) -> None:
    """What autovacuum does after a bulk insert (PostgreSQL 13+ vacuums on inserts too):
    planner statistics, and the visibility map that lets recall's posting scans stay
    index-only. Nothing to do on SQLite."""
    if db.dialect != "postgresql":
        return
    async with db.engine.connect() as conn:
        conn = await conn.execution_options(isolation_level="AUTOCOMMIT")
        await conn.execute(text("VACUUM ANALYZE"))
