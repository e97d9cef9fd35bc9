"""message scores and compressions belong to a user

Scores and compression history were kept per ``conversation_id`` in one namespace
shared by every caller: another caller's score on the same id replaced rows of the first
caller's conversation, and its compress appended to the first caller's history (issue
29). Both tables gain an owner, ``user_id``, and the conversation is unique per user.

Rows written before this migration had no owner; they go to the reserved user
``_legacy_shared`` (``LEGACY_OWNER``), readable by an admin key at
``/admin/users/_legacy_shared/conversations/{id}/...`` and by no user's own routes. An
operator who knows whose they were can move them with one UPDATE per table. Downgrading
drops the owner; it fails if two users scored the same conversation id and message index
(the old unique key could not hold both), which is the data this migration protects.

Revision ID: a29e51c0d7b4
Revises: 5c1e7a9b3d20
Create Date: 2026-11-28 16:00:00.000000+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "a29e51c0d7b4"
down_revision: str | None = "5c1e7a9b3d20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LEGACY_OWNER = "_legacy_shared"


def _add_owner(table: str) -> None:
    # NOT NULL needs a value for the existing rows: the legacy owner, then no default.
    with op.batch_alter_table(table, schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("user_id", sa.String(length=128), nullable=False, server_default=LEGACY_OWNER)
        )
    with op.batch_alter_table(table, schema=None) as batch_op:
        batch_op.alter_column("user_id", server_default=None)


def upgrade() -> None:
    _add_owner("message_scores")
    with op.batch_alter_table("message_scores", schema=None) as batch_op:
        batch_op.drop_constraint("uq_message_scores_conversation_id_message_index", type_="unique")
        batch_op.create_unique_constraint(
            "uq_message_scores_user_id_conversation_id_message_index",
            ["user_id", "conversation_id", "message_index"],
        )
    _add_owner("message_compressions")
    with op.batch_alter_table("message_compressions", schema=None) as batch_op:
        batch_op.drop_index("ix_message_compressions_conversation")
        batch_op.create_index(
            "ix_message_compressions_conversation",
            ["user_id", "conversation_id", "id"],
            unique=False,
        )


def downgrade() -> None:
    with op.batch_alter_table("message_compressions", schema=None) as batch_op:
        batch_op.drop_index("ix_message_compressions_conversation")
        batch_op.create_index(
            "ix_message_compressions_conversation", ["conversation_id", "id"], unique=False
        )
    with op.batch_alter_table("message_compressions", schema=None) as batch_op:
        batch_op.drop_column("user_id")
    with op.batch_alter_table("message_scores", schema=None) as batch_op:
        batch_op.drop_constraint(
            "uq_message_scores_user_id_conversation_id_message_index", type_="unique"
        )
        batch_op.create_unique_constraint(
            "uq_message_scores_conversation_id_message_index",
            ["conversation_id", "message_index"],
        )
    with op.batch_alter_table("message_scores", schema=None) as batch_op:
        batch_op.drop_column("user_id")
