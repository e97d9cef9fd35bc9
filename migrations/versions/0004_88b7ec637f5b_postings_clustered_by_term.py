"""postings clustered by term: recall's BM25 sum becomes an index-only range scan

SQLite: memory_terms is rebuilt as a WITHOUT ROWID table (the primary-key B-tree holds
the rows). PostgreSQL: the primary key is rebuilt with INCLUDE (tf, doc_length).
Nothing else changes; the rows are copied as they are.

Revision ID: 88b7ec637f5b
Revises: 69f83db381ce
Create Date: 2026-11-23 09:41:19.636396+00:00
"""

from collections.abc import Sequence

from alembic import op

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "88b7ec637f5b"
down_revision: str | None = "69f83db381ce"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_KEY = "(user_id, term, memory_id)"


def _rebuild(*, clustered: bool) -> None:
    if op.get_context().dialect.name == "postgresql":
        include = " INCLUDE (tf, doc_length)" if clustered else ""
        op.execute(
            "ALTER TABLE memory_terms DROP CONSTRAINT pk_memory_terms, "
            f"ADD CONSTRAINT pk_memory_terms PRIMARY KEY {_KEY}{include}"
        )
        return
    # SQLite cannot alter a table's storage: batch mode copies it into a new one.
    with op.batch_alter_table(
        "memory_terms", recreate="always", table_kwargs={"sqlite_with_rowid": not clustered}
    ):
        pass


def upgrade() -> None:
    _rebuild(clustered=True)


def downgrade() -> None:
    _rebuild(clustered=False)
