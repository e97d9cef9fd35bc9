"""9d4b2e6f1a37 → 1b7e4c9a2f60: memories say whose words they hold, on both databases.

Existing memories become the person's; the database refuses an unknown role; the same
words may be stored once per role. The downgrade keeps the rows, and refuses, changing
nothing, while one user holds the same words under both roles."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect as sa_inspect
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from services.core.db import build_engine
from tests.conftest import BACKENDS
from tests.db_backends import alembic_config, fresh_database, migrate

BEFORE = "9d4b2e6f1a37"
AFTER = "1b7e4c9a2f60"

_COLUMNS = (
    "user_id, content, content_hash, memory_type, metadata, created_at, updated_at,"
    " frequency_count, mention_count, recall_count, emotion_tags, emotion_score, topics,"
    " associated_count, doc_length, importance_score, importance_level, frequency_score,"
    " recency_score, impact_score"
)
_VALUES = (
    "'u', :content, 'h', 'fact', '{}', '2026-01-01 00:00:00', '2026-01-01 00:00:00',"
    " 1, 1, 0, '[]', 0, '[]', 0, 1, 0.2, 'low', 0.3, 1.0, 0"
)
_INSERT = text(f"INSERT INTO user_memories ({_COLUMNS}) VALUES ({_VALUES})")
_INSERT_WITH_ROLE = text(f"INSERT INTO user_memories ({_COLUMNS}, role) VALUES ({_VALUES}, :role)")


async def _execute(url: str, statement: object, **params: object) -> None:
    engine = build_engine(url)
    try:
        async with engine.begin() as conn:
            await conn.execute(statement, params)  # type: ignore[call-overload]
    finally:
        await engine.dispose()


async def _memories(url: str) -> tuple[list[str], list[tuple[object, ...]]]:
    """user_memories' columns, and its (content, role) rows (role None when absent)."""
    engine = build_engine(url)
    try:
        async with engine.connect() as conn:
            columns = await conn.run_sync(
                lambda sync: [c["name"] for c in sa_inspect(sync).get_columns("user_memories")]
            )
            role = "role" if "role" in columns else "NULL"
            rows = await conn.execute(
                text(f"SELECT content, {role} FROM user_memories ORDER BY id")
            )
            return columns, [tuple(r) for r in rows]
    finally:
        await engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
async def test_existing_memories_become_the_persons_words(backend: str, tmp_path: Path) -> None:
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url, BEFORE)
        await _execute(url, _INSERT, content="I live in Oslo")
        await migrate(url, AFTER)
        _, rows = await _memories(url)
        assert rows == [("I live in Oslo", "user")]
        # The same words (same hash) as the assistant's are a memory of their own.
        await _execute(url, _INSERT_WITH_ROLE, content="I live in Oslo", role="assistant")
        with pytest.raises(IntegrityError):
            await _execute(url, _INSERT_WITH_ROLE, content="I live in Oslo", role="assistant")
        with pytest.raises(IntegrityError, match=r"(?i)check"):
            await _execute(url, _INSERT_WITH_ROLE, content="hi", role="system")
        _, rows = await _memories(url)
        assert rows == [("I live in Oslo", "user"), ("I live in Oslo", "assistant")]


@pytest.mark.parametrize("backend", BACKENDS)
async def test_downgrade_refuses_words_held_under_both_roles(backend: str, tmp_path: Path) -> None:
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url, AFTER)
        await _execute(url, _INSERT_WITH_ROLE, content="I live in Oslo", role="user")
        await _execute(url, _INSERT_WITH_ROLE, content="I live in Oslo", role="assistant")
        config = alembic_config(url)
        with pytest.raises(RuntimeError, match="both roles"):
            await asyncio.to_thread(command.downgrade, config, BEFORE)
        columns, rows = await _memories(url)
        assert "role" in columns
        assert len(rows) == 2
        await _execute(url, text("DELETE FROM user_memories WHERE role = 'assistant'"))
        await asyncio.to_thread(command.downgrade, config, BEFORE)
        columns, rows = await _memories(url)
        assert "role" not in columns
        assert rows == [("I live in Oslo", None)]
        # The old key is back: the same content cannot be stored twice.
        with pytest.raises(IntegrityError):
            await _execute(url, _INSERT, content="I live in Oslo")
