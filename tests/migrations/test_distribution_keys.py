"""Keys ready for a PostgreSQL distributed by ``user_id`` (Citus
``create_distributed_table``): every user-owned table has ``user_id`` in its primary key,
in every unique constraint and in every foreign key, on both sides. Tables without a
``user_id`` are named here, each with the reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import ForeignKeyConstraint, Table, UniqueConstraint
from sqlalchemy import inspect as sa_inspect

from models import Base
from services.core.db import build_engine
from tests.conftest import BACKENDS
from tests.db_backends import fresh_database, migrate

# Deliberately global: one row per job run, for every user or none; API keys belong to
# callers, not to people (a key's scope names the users it reaches). Reference tables.
GLOBAL = {"job_runs", "api_keys"}
# Keyed by (user_id, id) in the models; SQLite keeps ``id`` as the physical rowid key.
KEYED_BY_ID = ("user_memories", "memory_score_history", "message_scores", "message_compressions")


def _user_owned() -> list[Table]:
    return [t for t in Base.metadata.sorted_tables if "user_id" in t.c and t.name not in GLOBAL]


def test_every_table_is_user_owned_or_named() -> None:
    unnamed = {t.name for t in Base.metadata.sorted_tables if "user_id" not in t.c}
    assert unnamed <= GLOBAL, f"tables without user_id: {sorted(unnamed)}"
    assert {t.name for t in _user_owned()} >= {
        "user_memories",
        "memory_users",
        "memory_terms",
        "memory_term_stats",
        "memory_topics",
        "memory_associations",
        "memory_embeddings",
        "memory_score_history",
        "message_scores",
        "message_compressions",
    }


@pytest.mark.parametrize("table", _user_owned(), ids=lambda t: t.name)
def test_user_id_is_in_every_key_of_a_user_owned_table(table: Table) -> None:
    assert "user_id" in table.primary_key.columns, f"{table.name}: primary key"
    for constraint in table.constraints:
        if isinstance(constraint, UniqueConstraint):
            assert "user_id" in constraint.columns, f"{table.name}: {constraint.name}"
        if isinstance(constraint, ForeignKeyConstraint):
            assert "user_id" in constraint.columns, f"{table.name}: {constraint.name}"
            referred = {element.column.name for element in constraint.elements}
            assert "user_id" in referred, f"{table.name}: {constraint.name} refers without it"
    for index in table.indexes:
        if index.unique:
            assert "user_id" in index.columns, f"{table.name}: {index.name}"


def test_ids_stay_numbered_by_the_database() -> None:
    """The API's ids do not change: each keyed-by-id table still numbers its rows."""
    for name in KEYED_BY_ID:
        table = Base.metadata.tables[name]
        assert list(table.primary_key.columns.keys()) == ["user_id", "id"]
        assert table.autoincrement_column is table.c.id


@pytest.mark.parametrize("backend", BACKENDS)
async def test_the_migrated_keys(backend: str, tmp_path: Path) -> None:
    """PostgreSQL's primary keys are the models'; SQLite keeps its rowid ``id`` (the one
    column it numbers) with a unique (user_id, id) beside it."""
    async with fresh_database(backend, tmp_path) as url:
        await migrate(url)
        engine = build_engine(url)
        try:
            async with engine.connect() as conn:

                def keys(sync: object) -> dict[str, tuple[list[str], list[list[str]]]]:
                    inspector = sa_inspect(sync)
                    return {
                        t.name: (
                            list(inspector.get_pk_constraint(t.name)["constrained_columns"]),
                            [
                                list(u["column_names"])
                                for u in inspector.get_unique_constraints(t.name)
                            ],
                        )
                        for t in _user_owned()
                    }

                physical = await conn.run_sync(keys)
        finally:
            await engine.dispose()
    for table in _user_owned():
        primary, uniques = physical[table.name]
        if backend == "sqlite" and table.name in KEYED_BY_ID:
            assert primary == ["id"], table.name
            if table.name == "user_memories":
                assert ["user_id", "id"] in uniques
            continue
        assert primary == list(table.primary_key.columns.keys()), table.name
