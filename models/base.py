"""Declarative base, naming convention and portable column types.

Models import nothing from the project: no queries, no I/O, no settings.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import JSON, BigInteger, DateTime, Dialect, Integer, MetaData
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator

# One naming convention so Alembic emits stable constraint names on both databases
# (SQLite batch migrations need named constraints to drop or alter them).
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_N_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every dialect.

    SQLite has no timezone type and silently drops offsets, so values are stored as
    naive UTC there and re-tagged with UTC on the way out. Naive datetimes coming in
    are rejected: an unlabelled time is a bug, not something to guess about.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTCDateTime column")
        value = value.astimezone(UTC)
        if dialect.name == "sqlite":
            return value.replace(tzinfo=None)
        return value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        if value.tzinfo is UTC:  # asyncpg's own: recall reads hundreds per query
            return value
        return value.astimezone(UTC)


# JSONB on PostgreSQL (smaller, indexable), plain JSON text elsewhere.
JSONType = JSON().with_variant(JSONB(), "postgresql")

# SQLite only auto-increments an INTEGER PRIMARY KEY; PostgreSQL wants a 64-bit key.
BigIntPK = BigInteger().with_variant(Integer(), "sqlite")


def one_of(column: str, values: Iterable[str]) -> str:
    """A CHECK condition: ``column`` holds one of ``values`` (plain words, quoted as SQL)."""
    words = list(values)
    assert all(v.isidentifier() for v in words), words
    quoted = ", ".join("'" + v + "'" for v in words)
    return f"{column} IN ({quoted})"


def all_non_negative(*columns: str) -> str:
    """A CHECK condition: every one of ``columns`` is 0 or more."""
    return " AND ".join(f"{c} >= 0" for c in columns)


def all_in_unit_range(*columns: str) -> str:
    """A CHECK condition: every one of ``columns`` lies in [0, 1]."""
    return " AND ".join(f"{c} BETWEEN 0 AND 1" for c in columns)


class Base(DeclarativeBase):
    """Root of every model; shares one MetaData with the naming convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime}
