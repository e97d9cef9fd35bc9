"""memories remember their conversation

``user_memories.conversation_id``: the dialogue a memory is a turn of, set by a batch
or an import of a conversation. Recall's continuity signal (seed 004 §4.2) lends a strong
hit's relevance only to the turns around it in the same conversation; a
memory without one (a statement a person made on its own) has no neighbours. No index:
neighbours are found by the (user_id, created_at, id) range scan and filtered on it.

Revision ID: 9d4b2e6f1a37
Revises: f4a6c8e0b2d1
Create Date: 2026-11-28 16:15:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "9d4b2e6f1a37"
down_revision: str | None = "f4a6c8e0b2d1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("user_memories", schema=None) as batch_op:
        batch_op.add_column(sa.Column("conversation_id", sa.String(length=128), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("user_memories", schema=None) as batch_op:
        batch_op.drop_column("conversation_id")
