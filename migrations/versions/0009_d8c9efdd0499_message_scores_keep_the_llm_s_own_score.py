"""message scores keep the LLM's own score

On the seed's scale the LLM gives one score per message (its rubric's 0-10) which is
blended with the rule score by the rule layer's confidence; the stored total cannot be
taken apart again, so the LLM's score is kept to be reused for an unchanged message
(services/context/importance/service.py). Rows written before have none and are
simply asked again.

Revision ID: d8c9efdd0499
Revises: b4e1d2c3a5f6
Create Date: 2026-11-26 17:16:20.436686+00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "d8c9efdd0499"
down_revision: str | None = "b4e1d2c3a5f6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("message_scores", schema=None) as batch_op:
        batch_op.add_column(sa.Column("llm_score", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("message_scores", schema=None) as batch_op:
        batch_op.drop_column("llm_score")
