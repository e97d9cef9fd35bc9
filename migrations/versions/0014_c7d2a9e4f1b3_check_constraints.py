"""check constraints on every enumerated or bounded column

Before this the CLI could store ``memory_type='note'``, after which the user's listing
and recall answered 500. Now the database itself refuses an unknown type or
level, a negative count or a score outside [0, 1].

Existing rows: a memory whose type is not one of the nine is **repaired** to ``other`` (the
type every entry point defaults to; the content and everything else stay), since that is
what the old CLI could write. Any other violation was never written by the service, so the
upgrade **fails** before changing anything, naming the table, the constraint and how many
rows break it; fix or delete those rows and migrate again. The downgrade drops the
constraints (a repaired type stays ``other``).

SQLite adds a CHECK constraint only by copying the table (batch mode; env.py turns off
foreign-key enforcement meanwhile, so the copy of user_memories cascades to nothing).

Revision ID: c7d2a9e4f1b3
Revises: c3f7a1d9e2b6
Create Date: 2026-11-28 16:00:00.000000+00:00
"""

import logging
from collections.abc import Sequence

from alembic import op
from sqlalchemy import text

import models.base  # noqa: F401 - autogenerate may reference its types

revision: str = "c7d2a9e4f1b3"
down_revision: str | None = "c3f7a1d9e2b6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

log = logging.getLogger("alembic.runtime.migration")

_TYPES = "'fact', 'preference', 'goal', 'decision', 'constraint', 'todo', 'event', 'code', 'other'"
_LEVELS = "'high', 'medium', 'low'"
_SCORES = (
    "importance_score BETWEEN 0 AND 1 AND frequency_score BETWEEN 0 AND 1"
    " AND recency_score BETWEEN 0 AND 1 AND emotion_score BETWEEN 0 AND 1"
    " AND impact_score BETWEEN 0 AND 1"
)

# table -> (constraint name, condition), as models/ declares them today.
_CHECKS: dict[str, list[tuple[str, str]]] = {
    "user_memories": [
        ("ck_user_memories_memory_type", f"memory_type IN ({_TYPES})"),
        ("ck_user_memories_importance_level", f"importance_level IN ({_LEVELS})"),
        (
            "ck_user_memories_counts",
            "frequency_count >= 0 AND mention_count >= 0 AND recall_count >= 0"
            " AND associated_count >= 0 AND doc_length >= 0",
        ),
        ("ck_user_memories_scores", _SCORES),
        (
            "ck_user_memories_not_superseded_by_itself",
            "superseded_by_id IS NULL OR superseded_by_id <> id",
        ),
    ],
    "memory_terms": [("ck_memory_terms_tf", "tf >= 1 AND doc_length >= tf")],
    "memory_term_stats": [("ck_memory_term_stats_df", "df >= 0")],
    "memory_associations": [
        ("ck_memory_associations_kind", "kind IN ('topic', 'explicit')"),
        ("ck_memory_associations_weight_positive", "weight > 0"),
    ],
    "memory_embeddings": [("ck_memory_embeddings_dim_positive", "dim >= 1")],
    "memory_score_history": [
        ("ck_memory_score_history_importance_level", f"importance_level IN ({_LEVELS})"),
        ("ck_memory_score_history_scores", _SCORES),
    ],
    "job_runs": [
        ("ck_job_runs_status", "status IN ('running', 'succeeded', 'failed', 'skipped')"),
        ("ck_job_runs_counts", "rows >= 0 AND escalations >= 0"),
    ],
}


def _repair_memory_types() -> None:
    """Unknown memory types (the old CLI's) become ``other``."""
    repaired = op.get_bind().execute(
        text(f"UPDATE user_memories SET memory_type = 'other' WHERE memory_type NOT IN ({_TYPES})")
    )
    if repaired.rowcount:
        log.warning("%d memories of an unknown type are now of type 'other'", repaired.rowcount)


def _refuse_violations() -> None:
    """Fail, changing nothing, when a row breaks a constraint the service never broke."""
    bind = op.get_bind()
    broken = []
    for table, checks in _CHECKS.items():
        for name, condition in checks:
            count = bind.execute(
                text(f"SELECT count(*) FROM {table} WHERE NOT ({condition})")
            ).scalar_one()
            if count:
                broken.append(f"{count} rows of {table} break {name} ({condition})")
    if broken:
        raise RuntimeError(
            "cannot add the check constraints: "
            + "; ".join(broken)
            + ". Fix or delete these rows, then migrate again."
        )


def _batch_kwargs(table: str) -> dict[str, object]:
    # memory_terms is a WITHOUT ROWID table on SQLite; its copy must be one too.
    return {"table_kwargs": {"sqlite_with_rowid": False}} if table == "memory_terms" else {}


def upgrade() -> None:
    _repair_memory_types()
    _refuse_violations()
    for table, checks in _CHECKS.items():
        with op.batch_alter_table(table, **_batch_kwargs(table)) as batch_op:  # type: ignore[arg-type]
            for name, condition in checks:
                batch_op.create_check_constraint(op.f(name), condition)


def downgrade() -> None:
    for table, checks in _CHECKS.items():
        with op.batch_alter_table(table, **_batch_kwargs(table)) as batch_op:  # type: ignore[arg-type]
            for name, _ in checks:
                batch_op.drop_constraint(op.f(name), type_="check")
