"""postings ordered by document length within a term: a common term's best postings first

The primary key of memory_terms becomes (user_id, term, doc_length, memory_id), with
``tf`` INCLUDEd on PostgreSQL; SQLite rebuilds its WITHOUT ROWID table around the new key.
The rows are copied as they are. Recall reads at most ``bm25_term_postings`` postings of
a term, its shortest memories' (services/repositories/statements/bm25_sql.py).

Revision ID: b4e1d2c3a5f6
Revises: 3a9c1e7d5b20
Create Date: 2026-11-25 22:00:00.000000+00:00
"""

from collections.abc import Sequence

from alembic import op

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "b4e1d2c3a5f6"
down_revision: str | None = "3a9c1e7d5b20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BY_LENGTH = ("user_id", "term", "doc_length", "memory_id")
_BY_MEMORY = ("user_id", "term", "memory_id")


def _rekey(columns: tuple[str, ...], include: tuple[str, ...]) -> None:
    if op.get_context().dialect.name == "postgresql":
        op.execute(
            "ALTER TABLE memory_terms DROP CONSTRAINT pk_memory_terms, "
            f"ADD CONSTRAINT pk_memory_terms PRIMARY KEY ({', '.join(columns)})"
            f" INCLUDE ({', '.join(include)})"
        )
        return
    # SQLite cannot change a primary key in place: batch mode copies the table into a new
    # WITHOUT ROWID one keyed as asked.
    with op.batch_alter_table(
        "memory_terms", recreate="always", table_kwargs={"sqlite_with_rowid": False}
    ) as batch:
        batch.drop_constraint("pk_memory_terms", type_="primary")
        batch.create_primary_key("pk_memory_terms", list(columns))


def upgrade() -> None:
    _rekey(_BY_LENGTH, ("tf",))


def downgrade() -> None:
    _rekey(_BY_MEMORY, ("tf", "doc_length"))
