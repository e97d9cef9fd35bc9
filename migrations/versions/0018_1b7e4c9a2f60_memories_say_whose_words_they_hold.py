"""memories say whose words they hold

``user_memories.role``: ``'user'`` (the person's own words) or ``'assistant'`` (the
assistant's reply, kept as context of a conversation). Until now a turn's speaker could
only be hinted at through the free-form ``source`` or an importer's metadata. Existing
rows become ``'user'`` (the server default, what every entry point wrote); a CHECK
constraint refuses any other value, as for the other enumerated columns (c7d2a9e4f1b3).

The unique key on the content hash gains the role, ``(user_id, content_hash, role)``:
the assistant echoing the person's words is not the person saying them again, so it
must be a memory of its own instead of merging (which would raise the person's mention
count). The hash stays second, so a lookup by ``(user_id, content_hash)`` still reads
the key's index.

The downgrade drops the column and puts the old key back. It fails, changing nothing,
when one user holds the same words under both roles (the old key cannot hold both):
delete one of each pair, then downgrade again.

SQLite adds a CHECK constraint or changes a key only by copying the table (batch mode).

Revision ID: 1b7e4c9a2f60
Revises: 9d4b2e6f1a37
Create Date: 2026-11-28 18:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy import text

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "1b7e4c9a2f60"
down_revision: str | None = "9d4b2e6f1a37"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_ROLES = "role IN ('user', 'assistant')"
_OLD_KEY = "uq_user_memories_user_id_content_hash"
_NEW_KEY = "uq_user_memories_user_id_content_hash_role"


def upgrade() -> None:
    with op.batch_alter_table("user_memories", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("role", sa.String(length=16), server_default="user", nullable=False)
        )
        batch_op.create_check_constraint(op.f("ck_user_memories_role"), _ROLES)
        batch_op.drop_constraint(op.f(_OLD_KEY), type_="unique")
        batch_op.create_unique_constraint(op.f(_NEW_KEY), ["user_id", "content_hash", "role"])


def _refuse_shared_contents() -> None:
    """Fail, changing nothing, when the old key could not hold the rows."""
    shared = (
        op.get_bind()
        .execute(
            text(
                "SELECT count(*) FROM (SELECT user_id, content_hash FROM user_memories"
                " GROUP BY user_id, content_hash HAVING count(*) > 1) AS both_roles"
            )
        )
        .scalar_one()
    )
    if shared:
        raise RuntimeError(
            f"cannot drop user_memories.role: {shared} contents are stored under both roles"
            " for one user, which the old unique (user_id, content_hash) cannot hold."
            " Delete one memory of each pair, then downgrade again."
        )


def downgrade() -> None:
    _refuse_shared_contents()
    with op.batch_alter_table("user_memories", schema=None) as batch_op:
        batch_op.drop_constraint(op.f(_NEW_KEY), type_="unique")
        batch_op.create_unique_constraint(op.f(_OLD_KEY), ["user_id", "content_hash"])
        batch_op.drop_constraint(op.f("ck_user_memories_role"), type_="check")
        batch_op.drop_column("role")
