"""A tracked recall's counting as one statement on PostgreSQL.

Counting a recall's hits is: recall_count + 1 (seed 002 §3.1), a history row for every
hit whose score moved, the hits' rescoring, and the rows read back for the answer. As
four statements in a transaction of their own (BEGIN and COMMIT two more round trips)
it cost 8.0-8.6 ms per tracked recall at the bench's 10k memories per user, against
5.1-5.4 ms as one statement in autocommit (p50 of 300, alternating in one process).

Here it is one statement, so it needs no transaction of its own either: run in
autocommit, a single statement is atomic by itself (``Database.one_statement``).

    WITH old AS (SELECT id, the old score, level and scored_at … ORDER BY id FOR NO KEY UPDATE),
         counted AS (UPDATE user_memories SET counts + 1, components, score, level …
                     FROM old WHERE id = old.id RETURNING the new row, the old score …),
         history AS (INSERT INTO memory_score_history SELECT … FROM counted WHERE moved)
    SELECT the id and what the count wrote FROM counted

Why it stays right:

- Concurrent recalls lose no count: ``old`` locks the hits in id order, as every writer
  of several memories does (``MemoryRepository.lock_in_id_order``), and the UPDATE then
  adds 1 to the row as it stands once locked.
- The score is computed in the SET list from the target row itself with the recall
  applied (frequency_count + 1, last activity now), the same formulas as the scheduled
  job (services/repositories/statements/scoring_sql.py): a row another transaction changed while
  this one waited for its lock is re-read, and so is everything computed from it.
- ``moved`` compares with the score the row held when locked: the history row is written
  exactly when the three-statement rescoring would have written it.

A data-modifying CTE is PostgreSQL's; SQLite keeps the statements one by one in its unit
of work, where BEGIN IMMEDIATE already serialises the writers.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import (
    Select,
    String,
    Table,
    and_,
    bindparam,
    case,
    func,
    literal,
    or_,
    select,
    update,
)

from models import UserMemory, UTCDateTime
from services.core.settings import Settings
from services.repositories.dialect.seam import one_of_bound
from services.repositories.statements.scoring_sql import (
    SCORING_FIELDS,
    ScoringInputs,
    clamped,
    components,
    history_from,
    level_of,
    weighted,
)

# What the count writes, and so what it returns: the rest of a row is as the ranking read
# it. (All of them cost 0.4 ms more per recall, most of it decoding the JSON columns.)
COUNTED_COLUMNS = (
    "recall_count",
    "frequency_count",
    "last_recalled_at",
    "frequency_score",
    "recency_score",
    "impact_score",
    "importance_score",
    "importance_level",
    "scored_at",
    "escalated_at",
    "escalation_acknowledged_at",
)

_BUILT: dict[tuple[Any, ...], Select[Any]] = {}
_MAX_BUILT = 32  # settings rarely change in a process; tests build a few dozen


def counted_recall(settings: Settings) -> Select[Any]:
    """The statement, built once per scoring settings; bound at execution with
    ``counted_user``, ``counted_ids`` (a list) and ``counted_at``.

    Its rows are the counted memories' ids and the :data:`COUNTED_COLUMNS` the count
    wrote, by name.
    """
    key = tuple(getattr(settings, name) for name in SCORING_FIELDS)
    built = _BUILT.get(key)
    if built is None:
        if len(_BUILT) >= _MAX_BUILT:
            _BUILT.clear()
        built = _BUILT[key] = _build(settings)
    return built


def _build(settings: Settings) -> Select[Any]:
    table = cast(Table, UserMemory.__table__)
    t = table.c
    cur = table.alias("cur")
    now = bindparam("counted_at", type_=UTCDateTime())
    # The row as the recall leaves it: one more use, last used now (seed 002 §3.1).
    recalled = ScoringInputs(
        frequency_count=cur.c.frequency_count + 1,
        last_activity=case((cur.c.last_mentioned_at > now, cur.c.last_mentioned_at), else_=now),
        created_at=cur.c.created_at,
        emotion_score=cur.c.emotion_score,
        associated_count=cur.c.associated_count,
    )
    # The components are computed as the rows are locked: a row another transaction
    # changed meanwhile is re-read by the lock, and its components with it.
    locked = (
        select(
            cur.c.id,
            *(expr.label(name) for name, expr in components(settings, now, recalled).items()),
            cur.c.importance_score.label("old_score"),
            cur.c.importance_level.label("old_level"),
            cur.c.scored_at.label("old_scored_at"),
        )
        .where(
            cur.c.user_id == bindparam("counted_user", type_=String()),
            one_of_bound("postgresql", cur.c.id, "counted_ids"),
        )
        .order_by(cur.c.id)
        .with_for_update(key_share=True)
        .subquery("locked")
    )
    k = locked.c
    # OFFSET 0: a subquery of its own, so the score is computed once per row (as in
    # scoring_sql.scored_rows) rather than once per reference to it below.
    scored = select(*k, clamped(weighted(settings, k)).label("score")).offset(0).subquery("scored")
    s = scored.c
    level = level_of(settings, s.score)
    counted = (
        update(table)
        .where(t.id == s.id)
        .values(
            recall_count=t.recall_count + 1,
            frequency_count=t.frequency_count + 1,
            last_recalled_at=now,
            frequency_score=s.frequency,
            recency_score=s.recency,
            impact_score=s.impact,
            importance_score=s.score,
            importance_level=level,
            scored_at=now,
            # Seed §5.1 should_escalate, as scoring_sql.rescore_update writes it.
            escalated_at=case(
                (and_(level == "high", t.importance_level != "high"), now),
                (level != "high", None),
                else_=t.escalated_at,
            ),
            escalation_acknowledged_at=case(
                (level != "high", None), else_=t.escalation_acknowledged_at
            ),
        )
        .returning(
            t.id,
            t.user_id,
            *(t[name] for name in COUNTED_COLUMNS),
            s.old_score,
            s.old_level,
            s.old_scored_at,
            s.emotion,
        )
        .cte("counted")
    )
    c = counted.c
    moved = or_(
        c.old_scored_at.is_(None),
        func.abs(c.importance_score - c.old_score) >= settings.score_history_min_delta,
        c.importance_level != c.old_level,
    )
    history = history_from(
        select(
            c.user_id,
            c.id,
            now,
            literal("recall", String()),
            c.importance_score,
            c.importance_level,
            c.frequency_score,
            c.recency_score,
            c.emotion,
            c.impact_score,
        ).where(moved),
    )
    return select(c.id, *(c[name] for name in COUNTED_COLUMNS)).add_cte(history.cte("history"))
