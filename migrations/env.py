"""Alembic environment: async engine, URL from settings unless the caller passes one."""

from __future__ import annotations

import asyncio
from logging.config import fileConfig

from alembic import context
from sqlalchemy.engine import Connection

from models import Base
from services.core.db import build_engine
from services.core.settings import Settings

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logging", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or Settings().database_url


def _run(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        # SQLite cannot ALTER most things in place; batch mode copies the table.
        render_as_batch=sqlite,
    )
    with context.begin_transaction():
        context.run_migrations()
        if sqlite:
            _refuse_broken_references(connection)


def _sqlite_foreign_keys(connection: Connection, on: bool) -> None:
    """Turn SQLite's foreign-key enforcement on or off for this connection.

    A batch migration copies a table, drops the old one and renames the copy. With
    enforcement on, dropping a referenced table (user_memories) is an implicit DELETE
    that cascades to every posting, topic, link, vector and history row (SQLite's own
    procedure for altering a table turns it off first). The PRAGMA is a no-op inside a
    transaction, so it goes to the driver's connection, around SQLAlchemy's BEGIN.
    """
    cursor = connection.connection.cursor()
    try:
        cursor.execute(f"PRAGMA foreign_keys={'ON' if on else 'OFF'}")
    finally:
        cursor.close()


def _refuse_broken_references(connection: Connection) -> None:
    """With enforcement off, check once at the end that every reference still holds."""
    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
    if broken:
        raise RuntimeError(f"migration left rows referencing missing rows: {broken[:5]}")


async def _run_async() -> None:
    engine = build_engine(_url())
    try:
        async with engine.connect() as connection:
            sqlite = connection.dialect.name == "sqlite"
            if sqlite:
                await connection.run_sync(_sqlite_foreign_keys, False)
            await connection.run_sync(_run)
            await connection.commit()
            if sqlite:
                await connection.run_sync(_sqlite_foreign_keys, True)
    finally:
        await engine.dispose()


def run_migrations_offline() -> None:
    """Emit SQL to stdout instead of running it."""
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
    else:
        asyncio.run(_run_async())
