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
from services.db import build_engine
from services.health import migration_heads
from tests.conftest import BACKENDS
from tests.db_backends import alembic_config, fresh_database, migrate


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
                await conn.execute(
                    text(
                        "INSERT INTO user_memories (user_id, content, content_hash, memory_type,"
                        " metadata, created_at, updated_at, frequency_count, mention_count,"
                        " recall_count, emotion_tags, emotion_score, topics, associated_count,"
                        " doc_length, importance_score, importance_level, frequency_score,"
                        " recency_score, impact_score) VALUES ('u', 'hello', 'h', 'fact', '{}',"
                        " '2026-01-01 00:00:00', '2026-01-01 00:00:00', 1, 1, 0, '[]', 0, '[]',"
                        " 0, 1, 0.2, 'low', 0.3, 1.0, 0)"
                    )
                )
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
        engine = build_engine(url)
        try:
            async with engine.begin() as conn:
                await conn.execute(
                    text(
                        "INSERT INTO user_memories (user_id, content, content_hash, memory_type,"
                        " metadata, created_at, updated_at, frequency_count, mention_count,"
                        " recall_count, emotion_tags, emotion_score, topics, associated_count,"
                        " doc_length, importance_score, importance_level, frequency_score,"
                        " recency_score, impact_score) VALUES ('u', 'I live in Oslo', 'h',"
                        " 'fact', '{}', '2026-01-01 00:00:00', '2026-01-01 00:00:00', 1, 1, 0,"
                        " '[]', 0, '[]', 0, 1, 0.2, 'low', 0.3, 1.0, 0)"
                    )
                )
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
