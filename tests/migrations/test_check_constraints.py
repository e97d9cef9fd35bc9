"""The database refuses what no reader could present, on both
databases: every model CHECK constraint exists after migrating, a raw INSERT or UPDATE
that breaks one fails, and the upgrade repairs the old CLI's types or refuses clearly."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import CheckConstraint, text
from sqlalchemy import inspect as sa_inspect
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from models import Base
from services.core.db import build_engine
from tests.conftest import BACKENDS
from tests.db_backends import alembic_config, fresh_database, migrate

BEFORE = "c3f7a1d9e2b6"  # the revision before the constraints

# One memory as plain SQL; :type, :level, :recalls and :score are the values under test.
_INSERT_MEMORY = text(
    "INSERT INTO user_memories (user_id, content, content_hash, memory_type,"
    " metadata, created_at, updated_at, frequency_count, mention_count,"
    " recall_count, emotion_tags, emotion_score, topics, associated_count,"
    " doc_length, importance_score, importance_level, frequency_score,"
    " recency_score, impact_score) VALUES ('u', :content, :hash, :type, '{}',"
    " '2026-01-01 00:00:00', '2026-01-01 00:00:00', 1, 1, :recalls, '[]', 0, '[]',"
    " 0, 1, :score, :level, 0.3, 1.0, 0)"
)
_GOOD = {"content": "I live in Oslo", "type": "fact", "level": "low", "recalls": 0, "score": 0.2}


async def _insert(engine: AsyncEngine, **values: object) -> None:
    async with engine.begin() as conn:
        row = {**_GOOD, **values}
        await conn.execute(_INSERT_MEMORY, {**row, "hash": str(row["content"])[:64]})


async def _check_names(url: str) -> set[str]:
    engine = build_engine(url)
    try:
        async with engine.connect() as conn:

            def names(sync: object) -> set[str]:
                inspector = sa_inspect(sync)
                present = set(inspector.get_table_names())  # a downgrade has fewer
                return {
                    str(check["name"])
                    for table in Base.metadata.tables
                    if table in present
                    for check in inspector.get_check_constraints(table)
                }

            return await conn.run_sync(names)
    finally:
        await engine.dispose()


def _model_check_names() -> set[str]:
    return {
        str(c.name)
        for table in Base.metadata.tables.values()
        for c in table.constraints
        if isinstance(c, CheckConstraint)
    }


@pytest.mark.parametrize("backend", BACKENDS)
async def test_every_model_check_is_in_the_migrated_database(backend: str, tmp_path: Path) -> None:
    """Alembic's drift check does not compare CHECK constraints: this one does."""
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url)
        migrated = await _check_names(url)
    assert "ck_user_memories_memory_type" in _model_check_names()
    assert _model_check_names() <= migrated


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "note"},
        {"level": "urgent"},
        {"recalls": -1},
        {"score": 1.5},
        {"score": -0.1},
    ],
    ids=["type", "level", "negative-count", "score-above-1", "score-below-0"],
)
async def test_a_raw_insert_of_a_bad_row_is_refused(
    engine: AsyncEngine, bad: dict[str, object]
) -> None:
    """Whoever writes (an old CLI, a script, a hand-made INSERT), the row is refused."""
    with pytest.raises(IntegrityError, match=r"(?i)check"):
        await _insert(engine, content=f"bad {sorted(bad.items())}", **bad)
    async with engine.connect() as conn:
        stored = (
            await conn.execute(
                text("SELECT count(*) FROM user_memories WHERE content LIKE 'bad %'")
            )
        ).scalar()
    assert stored == 0


async def test_an_update_cannot_break_a_constraint_either(engine: AsyncEngine) -> None:
    async with engine.connect() as conn:
        await conn.begin()
        await conn.execute(_INSERT_MEMORY, {**_GOOD, "content": "to update", "hash": "h"})
        for change in (
            "memory_type = 'note'",
            "importance_level = 'urgent'",
            "mention_count = -1",
            "superseded_by_id = id",
        ):
            savepoint = await conn.begin_nested()
            with pytest.raises(IntegrityError):
                await conn.execute(
                    text(f"UPDATE user_memories SET {change} WHERE content = 'to update'")
                )
            await savepoint.rollback()
        await conn.rollback()


async def _memory_and_postings(url: str) -> tuple[str, int]:
    engine = build_engine(url)
    try:
        async with engine.connect() as conn:
            memory_type = (
                await conn.execute(text("SELECT memory_type FROM user_memories"))
            ).scalar()
            postings = (await conn.execute(text("SELECT count(*) FROM memory_terms"))).scalar()
        return str(memory_type), int(postings or 0)
    finally:
        await engine.dispose()


async def _insert_with_posting(url: str, **values: object) -> None:
    engine = build_engine(url)
    try:
        await _insert(engine, **values)
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO memory_terms (user_id, term, memory_id, tf, doc_length)"
                    " SELECT 'u', 'oslo', id, 1, 1 FROM user_memories"
                )
            )
    finally:
        await engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_upgrade_repairs_the_old_clis_type_and_keeps_the_rest(
    backend: str, tmp_path: Path
) -> None:
    """A 'note' the old CLI stored becomes 'other'; its postings survive the copy of
    user_memories on SQLite (no cascade), and the downgrade keeps them too."""
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url, BEFORE)
        await _insert_with_posting(url, type="note")
        await migrate(url)
        assert await _memory_and_postings(url) == ("other", 1)
        await asyncio.to_thread(command.downgrade, alembic_config(url), BEFORE)
        assert await _memory_and_postings(url) == ("other", 1)
        assert not await _check_names(url) & {"ck_user_memories_memory_type"}


@pytest.mark.parametrize("backend", BACKENDS)
async def test_upgrade_refuses_other_violations_clearly_and_changes_nothing(
    backend: str, tmp_path: Path
) -> None:
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url, BEFORE)
        await _insert_with_posting(url, type="note", recalls=-3)
        with pytest.raises(RuntimeError) as refused:
            await migrate(url)
        assert "1 rows of user_memories break ck_user_memories_counts" in str(refused.value)
        assert "Fix or delete these rows" in str(refused.value)
        # Nothing changed: not even the repair of the type, and the revision is the old one.
        assert await _memory_and_postings(url) == ("note", 1)
        engine = build_engine(url)
        try:
            async with engine.connect() as conn:
                version = await conn.execute(text("SELECT version_num FROM alembic_version"))
                assert version.scalar() == BEFORE
        finally:
            await engine.dispose()
