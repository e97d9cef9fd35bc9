"""fact correction: a memory's fact slot and the newer memory that superseded it

Revision ID: 5c0f4e2b7a1d
Revises: 88b7ec637f5b
Create Date: 2026-11-24 09:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.base

revision: str = "5c0f4e2b7a1d"
down_revision: str | None = "88b7ec637f5b"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable columns and indexes only: SQLite adds them in place (batch mode does not
    # rebuild the table for these), so existing rows, postings and links are untouched.
    # Memories stored before this revision have no slot; they are never superseded
    # automatically, only through the explicit supersede API.
    with op.batch_alter_table("user_memories", schema=None) as batch_op:
        batch_op.add_column(sa.Column("fact_slot", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("superseded_by_id", sa.BigInteger(), nullable=True))
        batch_op.add_column(
            sa.Column("superseded_at", models.base.UTCDateTime(timezone=True), nullable=True)
        )
        batch_op.create_index("ix_user_memories_user_slot", ["user_id", "fact_slot"], unique=False)
        batch_op.create_index(
            "ix_user_memories_user_superseded_by", ["user_id", "superseded_by_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("user_memories", schema=None) as batch_op:
        batch_op.drop_index("ix_user_memories_user_superseded_by")
        batch_op.drop_index("ix_user_memories_user_slot")
        batch_op.drop_column("superseded_at")
        batch_op.drop_column("superseded_by_id")
        batch_op.drop_column("fact_slot")
