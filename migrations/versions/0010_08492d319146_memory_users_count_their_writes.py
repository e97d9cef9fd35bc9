"""memory users count their writes

``memory_users.write_version`` is raised by 1 in every transaction that writes the user's
memories (MemoryRepository.lock_user). The context's knowledge cache keys its entries by
it, read from the database, so no process serves an entry from before a write another
process committed (services/context/assembly/knowledge_cache.py).

Revision ID: 08492d319146
Revises: d8c9efdd0499
Create Date: 2026-11-26 17:24:59.422671+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "08492d319146"
down_revision: str | None = "d8c9efdd0499"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("memory_users", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("write_version", sa.BigInteger(), server_default="0", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("memory_users", schema=None) as batch_op:
        batch_op.drop_column("write_version")
