"""people have a time zone

``memory_users.time_zone``: the IANA name (``Asia/Shanghai``) of the zone a person's days
are counted in: "yesterday" in a recall, the dates in a context's memory block. NULL (every
existing person) keeps UTC, what the service used before.

Revision ID: d8c2e6f4a1b3
Revises: b5e1c3a7d9f2
Create Date: 2026-11-29 13:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "d8c2e6f4a1b3"
down_revision: str | None = "b5e1c3a7d9f2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("memory_users", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_zone", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("memory_users", schema=None) as batch_op:
        batch_op.drop_column("time_zone")
