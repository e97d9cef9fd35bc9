"""job runs record the memories per level

A full rescoring run that succeeded stores the number of memories per importance level
(``job_runs.levels``); /metrics reports the newest as ``jarvis_memories{level}``
without counting the memories table on every scrape.

Revision ID: 5c1e7a9b3d20
Revises: 08492d319146
Create Date: 2026-11-26 20:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "5c1e7a9b3d20"
down_revision: str | None = "08492d319146"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("job_runs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "levels",
                sa.JSON().with_variant(postgresql.JSONB(), "postgresql"),
                nullable=True,
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("job_runs", schema=None) as batch_op:
        batch_op.drop_column("levels")
