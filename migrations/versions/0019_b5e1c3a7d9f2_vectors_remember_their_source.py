"""vectors remember their source

``memory_embeddings.source_hash``: the SHA-256 (hex) of the exact text a vector was made
from (a turn's text with the turns before it, services/embeddings/turn_context.py). The
backfill stores a vector only while its memory still has the text it read, and
``jarvis-memory embed --verify`` reports vectors whose source no longer matches. Vectors
stored before this revision have none (NULL): verify counts them as unknown.

Revision ID: b5e1c3a7d9f2
Revises: 1b7e4c9a2f60
Create Date: 2026-11-29 09:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "b5e1c3a7d9f2"
down_revision: str | None = "1b7e4c9a2f60"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("memory_embeddings", schema=None) as batch_op:
        batch_op.add_column(sa.Column("source_hash", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("memory_embeddings", schema=None) as batch_op:
        batch_op.drop_column("source_hash")
