"""texts the provider will not embed are marked and skipped

``embedding_failures``: a memory whose text the provider failed to embed on its own,
though it embedded the rest of its batch (the backfill splits a failing batch down to
single texts). Later runs of the same model skip it while its text hashes the same
(``source_hash``); an edit makes it eligible again. ``job_runs.failures`` counts the
texts a run marked.

Revision ID: ff21f29fad15
Revises: d8c2e6f4a1b3
Create Date: 2026-11-29 13:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.base

revision: str = "ff21f29fad15"
down_revision: str | None = "d8c2e6f4a1b3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "embedding_failures",
        sa.Column("user_id", sa.String(length=128), nullable=False),
        sa.Column("memory_id", sa.BigInteger(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("source_hash", sa.String(length=64), nullable=False),
        sa.Column("error", sa.Text(), nullable=False),
        sa.Column("failed_at", models.base.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id", "memory_id"],
            ["user_memories.user_id", "user_memories.id"],
            name=op.f("fk_embedding_failures_user_id_memory_id_user_memories"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "memory_id", name=op.f("pk_embedding_failures")),
    )
    with op.batch_alter_table("job_runs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("failures", sa.Integer(), server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("job_runs", schema=None) as batch_op:
        batch_op.drop_column("failures")
    op.drop_table("embedding_failures")
