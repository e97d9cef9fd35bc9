"""One head; a full downgrade and upgrade with data in the tables; no drift from models."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect as sa_inspect
from sqlalchemy import text

from models import Base
from services.core.db import build_engine
from services.core.health import migration_heads
from tests.conftest import BACKENDS
from tests.db_backends import alembic_config, fresh_database, migrate

# One memory as plain SQL, with the columns every revision since the first has.
_INSERT_MEMORY = text(
    "INSERT INTO user_memories (user_id, content, content_hash, memory_type,"
    " metadata, created_at, updated_at, frequency_count, mention_count,"
    " recall_count, emotion_tags, emotion_score, topics, associated_count,"
    " doc_length, importance_score, importance_level, frequency_score,"
    " recency_score, impact_score) VALUES ('u', :content, 'h', 'fact', '{}',"
    " '2026-01-01 00:00:00', '2026-01-01 00:00:00', 1, 1, 0, '[]', 0, '[]',"
    " 0, 1, 0.2, 'low', 0.3, 1.0, 0)"
)


def test_single_head() -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite://"))
    assert len(script.get_heads()) == 1
    assert migration_heads() == set(script.get_heads())


@pytest.mark.parametrize("backend", BACKENDS)
async def test_round_trip_with_data_and_no_drift(backend: str, tmp_path: Path) -> None:
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url)
        engine = build_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.execute(_INSERT_MEMORY, {"content": "hello"})
            async with engine.connect() as conn:
                diff = await conn.run_sync(
                    lambda sync: compare_metadata(MigrationContext.configure(sync), Base.metadata)
                )
            assert diff == []
        finally:
            await engine.dispose()
        config = alembic_config(url)
        await asyncio.to_thread(command.downgrade, config, "base")
        await migrate(url)
        engine = build_engine(url)
        try:
            async with engine.connect() as conn:
                tables = await conn.run_sync(lambda sync: set(sync.dialect.get_table_names(sync)))
                count = (await conn.execute(text("SELECT count(*) FROM user_memories"))).scalar()
        finally:
            await engine.dispose()
        assert {"user_memories", "memory_terms", "memory_associations", "job_runs"} <= tables
        assert count == 0


@pytest.mark.parametrize("backend", BACKENDS)
async def test_fact_correction_upgrade_keeps_existing_memories(
    backend: str, tmp_path: Path
) -> None:
    """69f83db381ce → 5c0f4e2b7a1d adds the fact columns in place: rows and postings stay,
    existing memories are current (no slot, not superseded) and the new index answers."""
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url, "69f83db381ce")
        await _insert_memory_with_posting(url)
        await migrate(url)
        engine = build_engine(url)
        try:
            async with engine.connect() as conn:
                row = (
                    await conn.execute(
                        text(
                            "SELECT content, fact_slot, superseded_by_id, superseded_at"
                            " FROM user_memories"
                        )
                    )
                ).one()
                postings = (await conn.execute(text("SELECT count(*) FROM memory_terms"))).scalar()
                indexes = await conn.run_sync(
                    lambda sync: {i["name"] for i in sa_inspect(sync).get_indexes("user_memories")}
                )
        finally:
            await engine.dispose()
        assert tuple(row) == ("I live in Oslo", None, None, None)
        assert postings == 1
        assert {"ix_user_memories_user_slot", "ix_user_memories_user_superseded_by"} <= indexes


async def _insert_memory_with_posting(url: str) -> None:
    """One memory and its one posting, written as plain SQL (any revision's columns)."""
    engine = build_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(_INSERT_MEMORY, {"content": "I live in Oslo"})
            memory_id = (await conn.execute(text("SELECT id FROM user_memories"))).scalar()
            await conn.execute(
                text(
                    "INSERT INTO memory_terms (user_id, term, memory_id, tf, doc_length)"
                    " VALUES ('u', 'oslo', :m, 1, 1)"
                ),
                {"m": memory_id},
            )
    finally:
        await engine.dispose()


async def _postings_key(url: str) -> tuple[list[str], list[tuple[str, int, int]]]:
    """memory_terms' primary-key columns, and its rows (term, tf, doc_length)."""
    engine = build_engine(url)
    try:
        async with engine.connect() as conn:
            key = await conn.run_sync(
                lambda sync: sa_inspect(sync).get_pk_constraint("memory_terms")
            )
            rows = await conn.execute(text("SELECT term, tf, doc_length FROM memory_terms"))
            return list(key["constrained_columns"]), [tuple(r) for r in rows]
    finally:
        await engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_postings_rekeyed_by_length_keep_their_rows_both_ways(
    backend: str, tmp_path: Path
) -> None:
    """3a9c1e7d5b20 → b4e1d2c3a5f6 keys postings by length within a term, and back."""
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url, "3a9c1e7d5b20")
        await _insert_memory_with_posting(url)
        await migrate(url, "b4e1d2c3a5f6")
        upgraded = await _postings_key(url)
        await asyncio.to_thread(command.downgrade, alembic_config(url), "3a9c1e7d5b20")
        downgraded = await _postings_key(url)
    assert upgraded == (["user_id", "term", "doc_length", "memory_id"], [("oslo", 1, 1)])
    assert downgraded == (["user_id", "term", "memory_id"], [("oslo", 1, 1)])


_INSERT_SCORE = text(
    "INSERT INTO message_scores (conversation_id, message_index, role, content_hash,"
    " task_hash, task_type, total, dimensions, confidence, method, scored_at)"
    " VALUES ('c1', 0, 'user', 'h', 't', 'default', 5.0, '{}', 0.9, 'rule',"
    " '2026-01-01 00:00:00')"
)
_INSERT_COMPRESSION = text(
    "INSERT INTO message_compressions (conversation_id, created_at, task_hash, from_count,"
    " to_count, from_tokens, to_tokens, compression_rate, preserve_recent, kept, dropped)"
    " VALUES ('c1', '2026-01-01 00:00:00', 't', 2, 1, 20, 10, 0.5, 0, '[0]', '[1]')"
)


async def _owners(url: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    engine = build_engine(url)
    try:
        async with engine.connect() as conn:
            scores = await conn.execute(text("SELECT user_id, conversation_id FROM message_scores"))
            history = await conn.execute(
                text("SELECT user_id, conversation_id FROM message_compressions")
            )
            return [tuple(r) for r in scores], [tuple(r) for r in history]
    finally:
        await engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_unowned_message_scores_go_to_the_legacy_owner_and_back(
    backend: str, tmp_path: Path
) -> None:
    """5c1e7a9b3d20 → a29e51c0d7b4 gives rows written without an owner to _legacy_shared;
    downgrading drops the owner again and keeps the rows."""
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url, "5c1e7a9b3d20")
        engine = build_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.execute(_INSERT_SCORE)
                await conn.execute(_INSERT_COMPRESSION)
        finally:
            await engine.dispose()
        await migrate(url, "a29e51c0d7b4")
        upgraded = await _owners(url)
        await asyncio.to_thread(command.downgrade, alembic_config(url), "5c1e7a9b3d20")
        engine = build_engine(url)
        try:
            async with engine.connect() as conn:
                kept = (await conn.execute(text("SELECT count(*) FROM message_scores"))).scalar()
        finally:
            await engine.dispose()
    assert upgraded == ([("_legacy_shared", "c1")], [("_legacy_shared", "c1")])
    assert kept == 1
