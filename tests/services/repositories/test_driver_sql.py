"""Fixed statements run as the driver's SQL on PostgreSQL return what ``session.execute``
returns, and fail the way it fails (services/repositories/dialect/driver_sql.py), on both
databases."""

from __future__ import annotations

from datetime import UTC
from typing import cast

import pytest
from sqlalchemy import BigInteger, Float, String, Table, bindparam, column, text, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from models import UserMemory
from services.repositories.dialect.driver_sql import driver_statement, execute, fetch_all
from services.repositories.dialect.seam import dialect_of, one_of_bound
from services.repositories.memories import MemoryRepository
from tests.factories import Services

ASYNCPG = make_url("postgresql+asyncpg://").get_dialect()()

# :user_id twice, a typed timestamp column, and a parameter in an expression.
_STATEMENT = text(
    "SELECT id, content, created_at, importance_score * :factor AS scaled FROM user_memories"
    " WHERE user_id = :user_id AND id IN (SELECT id FROM user_memories WHERE user_id = :user_id)"
    " ORDER BY id"
).columns(
    column("id", BigInteger()),
    UserMemory.__table__.c.content,
    UserMemory.__table__.c.created_at,
    column("scaled", Float()),
)


async def test_rows_are_what_session_execute_returns(services: Services) -> None:
    await services.add("u", "I drink green tea every morning")
    await services.add("u", "我周末去爬山")
    await services.add("other", "not mine")
    params = {"user_id": "u", "factor": 2.0}
    async with services.db.reader() as session:
        fast = await fetch_all(session, _STATEMENT, params)
        ordinary = (await session.execute(_STATEMENT, params)).all()
    assert [tuple(r) for r in fast] == [tuple(r) for r in ordinary]
    assert [r.content for r in fast] == ["I drink green tea every morning", "我周末去爬山"]
    assert all(r.created_at.tzinfo is UTC for r in fast)
    assert [type(v) for v in fast[0]] == [type(v) for v in ordinary[0]]


async def test_a_failing_statement_raises_sqlalchemys_error(services: Services) -> None:
    failing = text("SELECT a FROM no_such_table WHERE b = :word")

    async def read() -> None:
        async with services.db.reader() as session:
            await fetch_all(session, failing, {"word": "tea"})

    with pytest.raises(DBAPIError):
        await read()


async def test_an_update_binds_its_built_in_values_and_the_given_ones(services: Services) -> None:
    mine = await services.add("u", "I drink green tea every morning")
    other = await services.add("other", "I drink green tea every morning")
    table = cast(Table, UserMemory.__table__)
    t = table.c
    async with services.db.unit_of_work() as session:
        # + 5 is a value built into the statement; the user and ids are bound at execution.
        statement = (
            update(table)
            .where(
                t.user_id == bindparam("owner", type_=String()),
                one_of_bound(dialect_of(session), t.id, "ids"),
            )
            .values(recall_count=t.recall_count + 5)
        )
        await execute(session, statement, {"owner": "u", "ids": [mine.id, other.id]})
    async with services.db.reader() as session:
        found = await MemoryRepository(session).get_many("u", [mine.id])
        theirs = await MemoryRepository(session).get_many("other", [other.id])
    assert found[mine.id].recall_count == mine.recall_count + 5
    assert theirs[other.id].recall_count == other.recall_count


def test_a_repeated_parameter_is_bound_once_in_positional_styles() -> None:
    prepared = driver_statement(_STATEMENT, ASYNCPG)
    assert prepared.positional
    assert prepared.names == ("factor", "user_id")
    assert prepared.sql.count("$2") == 2
    assert prepared.bind({"user_id": "u", "factor": 2.0, "unused": 1}) == (2.0, "u")


def test_a_statement_that_expands_its_parameters_is_refused() -> None:
    expanding = text("SELECT id FROM user_memories WHERE id IN :ids").bindparams(
        bindparam("ids", expanding=True)
    )
    with pytest.raises(ValueError, match="expand"):
        driver_statement(expanding, ASYNCPG)
