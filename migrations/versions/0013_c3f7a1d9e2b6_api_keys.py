"""api keys stored hashed, bound to all users or a user-id prefix

Keys made with ``jarvis-memory keys create``: only the SHA-256 of the secret is kept,
with the scope (``user_prefix`` NULL for every user) and whether the key is an admin
key. Keys from JARVIS_API_KEYS / JARVIS_ADMIN_KEYS are not stored here.

Revision ID: c3f7a1d9e2b6
Revises: 5c1e7a9b3d20
Create Date: 2026-11-28 16:30:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.base

revision: str = "c3f7a1d9e2b6"
down_revision: str | None = "a29e51c0d7b4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("name", sa.String(length=128), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("hint", sa.String(length=16), nullable=False),
        sa.Column("user_prefix", sa.String(length=128), nullable=True),
        sa.Column("admin", sa.Boolean(), nullable=False),
        sa.Column("created_at", models.base.UTCDateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", models.base.UTCDateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("secret_hash", name=op.f("uq_api_keys_secret_hash")),
    )


def downgrade() -> None:
    op.drop_table("api_keys")
