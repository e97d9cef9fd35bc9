"""message scores and compressions keyed by (user_id, id), like every user-owned table

Earlier revisions gave conversations an owner (a29e51c0d7b4) and put ``user_id`` first in every
other user-owned table's keys (e3b8f1a6c2d4); this does the same for the two message
tables, so PostgreSQL can be distributed by ``user_id`` without a change of schema. Their
unique constraints already lead with ``user_id`` and nothing refers to them. ``id`` keeps
its sequence.

SQLite keeps ``id`` as the physical primary key (the rowid, the one column it numbers);
SQLite is never distributed, so nothing changes there.

Revision ID: f4a6c8e0b2d1
Revises: e3b8f1a6c2d4
Create Date: 2026-11-28 17:00:00.000000+00:00
"""

from collections.abc import Sequence

from alembic import op

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "f4a6c8e0b2d1"
down_revision: str | None = "e3b8f1a6c2d4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TABLES = ("message_scores", "message_compressions")


def _rekey(columns: str) -> None:
    if op.get_context().dialect.name != "postgresql":
        return
    for table in _TABLES:
        op.execute(
            f"ALTER TABLE {table} DROP CONSTRAINT pk_{table},"
            f" ADD CONSTRAINT pk_{table} PRIMARY KEY ({columns})"
        )


def upgrade() -> None:
    _rekey("user_id, id")


def downgrade() -> None:
    _rekey("id")
