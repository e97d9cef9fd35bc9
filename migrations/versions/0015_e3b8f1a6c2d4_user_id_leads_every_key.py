"""user_id leads every key: user_memories and memory_score_history keyed by (user_id, id)

Every user-owned table now has ``user_id`` in its primary key, in every unique constraint
and in every foreign key, so PostgreSQL can be distributed by ``user_id``
(Citus ``create_distributed_table``) without a change of schema. The two tables keyed by
``id`` alone become keyed by ``(user_id, id)``; ``id`` keeps its sequence and stays
unique, so no id the API handed out changes. user_memories gains a plain index on ``id``
(rescoring walks id ranges over all users; the old primary key served them).

SQLite keeps ``id`` as the physical primary key of both tables: SQLite numbers rows only
for an ``INTEGER PRIMARY KEY`` (the rowid), and its unique ``(user_id, id)`` already is
the key the child tables reference. SQLite is never distributed; it only gets the index.

Revision ID: e3b8f1a6c2d4
Revises: c7d2a9e4f1b3
Create Date: 2026-11-28 16:30:00.000000+00:00
"""

from collections.abc import Sequence

from alembic import op

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "e3b8f1a6c2d4"
down_revision: str | None = "c7d2a9e4f1b3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TABLES = ("user_memories", "memory_score_history")


def _rekey(columns: str) -> None:
    if op.get_context().dialect.name != "postgresql":
        return
    for table in _TABLES:
        op.execute(
            f"ALTER TABLE {table} DROP CONSTRAINT pk_{table},"
            f" ADD CONSTRAINT pk_{table} PRIMARY KEY ({columns})"
        )


def upgrade() -> None:
    with op.batch_alter_table("user_memories", schema=None) as batch_op:
        batch_op.create_index("ix_user_memories_id", ["id"], unique=False)
    _rekey("user_id, id")


def downgrade() -> None:
    _rekey("id")
    with op.batch_alter_table("user_memories", schema=None) as batch_op:
        batch_op.drop_index("ix_user_memories_id")
