"""Set-based rescoring: seed 002's formulas as SQL, mirroring services/scoring/scorer.py.

One statement rescores any set of rows (a user, an id range, a list of ids) without
bringing them into Python. A half-life decay is ``exp(days · ln 0.5 / H)``, the same
number as ``0.5 ** (days / H)`` in the pure scorer.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Float,
    Insert,
    Select,
    String,
    and_,
    bindparam,
    case,
    func,
    insert,
    literal,
    or_,
    select,
    update,
)
from sqlalchemy.sql.base import ReadOnlyColumnCollection
from sqlalchemy.sql.elements import ColumnElement

from models import MemoryScoreHistory, UserMemory, UTCDateTime
from services.core.settings import Settings
from services.repositories.dialect.seam import SQLExpr, days_since, one_of_bound

LN_HALF = math.log(0.5)


def _num(value: float) -> ColumnElement[float]:
    return literal(value, Float())


# PostgreSQL raises "value out of range: underflow" where a float8 product or exp()
# would leave the normal range (Python quietly goes subnormal or to 0.0), so a stored
# 5e-324 emotion or a century-old import would fail a whole rescoring run. Values under
# TINY count as 0 (as in services/scoring/scorer.py), and decay exponents stop at
# MIN_EXPONENT (exp(-600) ~ 3e-261: 0 to any score's precision).
TINY = 1e-12
MIN_EXPONENT = -600.0


def _clamp01(expr: SQLExpr) -> ColumnElement[Any]:
    return case((expr > 1.0, _num(1.0)), (expr < TINY, _num(0.0)), else_=expr)


def _decay(days: ColumnElement[Any], half_life: float) -> ColumnElement[Any]:
    # Future timestamps (clock skew, imports) count as "now", like days_between().
    clipped = case((days < 0.0, _num(0.0)), else_=days)
    exponent = clipped * _num(LN_HALF / half_life)
    return func.exp(case((exponent < MIN_EXPONENT, _num(MIN_EXPONENT)), else_=exponent))


def _last_activity() -> ColumnElement[Any]:
    recalled, mentioned = UserMemory.last_recalled_at, UserMemory.last_mentioned_at
    return case(
        (
            and_(recalled.is_not(None), mentioned.is_not(None)),
            case((recalled > mentioned, recalled), else_=mentioned),
        ),
        (recalled.is_not(None), recalled),
        (mentioned.is_not(None), mentioned),
        else_=UserMemory.created_at,
    )


@dataclass(frozen=True)
class ScoringInputs:
    """The row values seed 002's components read, as SQL: a row's own columns by default,
    or the values a change is about to write (a recall counted: services/repositories/
    recall_count_sql.py)."""

    frequency_count: SQLExpr
    last_activity: SQLExpr
    created_at: SQLExpr
    emotion_score: SQLExpr
    associated_count: SQLExpr


def stored_inputs() -> ScoringInputs:
    """The components' inputs as the rows hold them."""
    m = UserMemory
    return ScoringInputs(
        m.frequency_count, _last_activity(), m.created_at, m.emotion_score, m.associated_count
    )


def components(
    settings: Settings, now: ColumnElement[Any], inputs: ScoringInputs
) -> dict[str, ColumnElement[Any]]:
    """The four components (``frequency``, ``recency``, ``emotion``, ``impact``) as SQL."""
    s = settings
    count_ratio = inputs.frequency_count * _num(1.0 / s.frequency_threshold)
    frequency = case((count_ratio > 1.0, _num(1.0)), else_=count_ratio) * _decay(
        days_since(now, inputs.last_activity), s.frequency_half_life_days
    )
    raw_recency = _decay(days_since(now, inputs.created_at), s.recency_half_life_days)
    recency = case(
        (
            and_(
                inputs.emotion_score >= s.emotion_floor_min_weight,
                raw_recency < s.emotion_recency_floor,
            ),
            _num(s.emotion_recency_floor),
        ),
        else_=raw_recency,
    )
    impact_ratio = inputs.associated_count * _num(1.0 / s.impact_threshold)
    impact = case((impact_ratio > 1.0, _num(1.0)), else_=impact_ratio)
    emotion = _clamp01(inputs.emotion_score)
    return {"frequency": frequency, "recency": recency, "emotion": emotion, "impact": impact}


def weighted(
    settings: Settings, parts: Mapping[str, SQLExpr] | ReadOnlyColumnCollection[str, Any]
) -> ColumnElement[Any]:
    """The weighted sum of the components (by name: a mapping or a subquery's columns),
    before clamping."""
    s = settings
    return (
        parts["frequency"] * s.weight_frequency
        + parts["recency"] * s.weight_recency
        + parts["emotion"] * s.weight_emotion
        + parts["impact"] * s.weight_impact
    )


def clamped(raw: SQLExpr) -> ColumnElement[Any]:
    """The score: the weighted sum clamped to [0, 1]."""
    return case((raw > 1.0, _num(1.0)), (raw < 0.0, _num(0.0)), else_=raw)


def level_of(settings: Settings, score: SQLExpr) -> ColumnElement[Any]:
    """``high``, ``medium`` or ``low`` for a score."""
    return case(
        (score >= settings.level_high, literal("high")),
        (score >= settings.level_medium, literal("medium")),
        else_=literal("low"),
    )


def scored_rows(
    settings: Settings, now: datetime | None, where: ColumnElement[bool]
) -> Select[Any]:
    """SELECT id, the four components, the score and the level for rows matching ``where``.

    ``now`` None leaves ``score_now`` to be bound at execution (:func:`ids_rescoring`).
    """
    now_param = bindparam("score_now", now, type_=UTCDateTime())
    parts = components(settings, now_param, stored_inputs())
    # OFFSET 0 keeps each step a subquery of its own: flattened, every reference to a
    # component or to the score would repeat its whole expression (exp, interval
    # arithmetic) about ten times per row, which made the rescoring UPDATE 3x the cost
    # of a bare UPDATE of the same rows on PostgreSQL.
    components_query = (
        select(UserMemory.id.label("id"), *(expr.label(name) for name, expr in parts.items()))
        .where(where)
        .offset(0)
        .subquery("components")
    )
    c = components_query.c
    scored = (
        select(
            c.id, c.frequency, c.recency, c.emotion, c.impact, weighted(settings, c).label("raw")
        )
        .offset(0)
        .subquery("weighted")
    )
    w = scored.c
    score = clamped(w.raw)
    return select(
        w.id,
        w.frequency,
        w.recency,
        w.emotion,
        w.impact,
        score.label("score"),
        level_of(settings, score).label("level"),
    )


def history_insert(
    settings: Settings, now: datetime | None, where: ColumnElement[bool], reason: str | None
) -> Any:
    """INSERT a history row for every matching memory whose score moved noticeably."""
    scored = scored_rows(settings, now, where).subquery("scored")
    moved = or_(
        UserMemory.scored_at.is_(None),
        func.abs(scored.c.score - UserMemory.importance_score) >= settings.score_history_min_delta,
        scored.c.level != UserMemory.importance_level,
    )
    rows = select(
        UserMemory.user_id,
        UserMemory.id,
        bindparam("history_now", now, type_=UTCDateTime()),
        bindparam("history_reason", reason, type_=String()),
        scored.c.score,
        scored.c.level,
        scored.c.frequency,
        scored.c.recency,
        scored.c.emotion,
        scored.c.impact,
    ).where(UserMemory.id == scored.c.id, moved)
    return history_from(rows)


def history_from(rows: Select[Any]) -> Insert:
    """INSERT the history rows ``rows`` selects: user, memory, when, why, score, level
    and the four components, in that order."""
    h = MemoryScoreHistory
    return insert(h).from_select(
        [
            h.user_id,
            h.memory_id,
            h.scored_at,
            h.reason,
            h.importance_score,
            h.importance_level,
            h.frequency_score,
            h.recency_score,
            h.emotion_score,
            h.impact_score,
        ],
        rows,
    )


def rescore_update(settings: Settings, now: datetime | None, where: ColumnElement[bool]) -> Any:
    """UPDATE the matching memories' components, score, level and escalation mark.

    A memory crossing into ``high`` gets ``escalated_at = now`` (seed §5.1
    should_escalate); one leaving ``high`` loses its escalation.
    """
    scored = scored_rows(settings, now, where).subquery("scored")
    now_param = bindparam("update_now", now, type_=UTCDateTime())
    crossing = and_(scored.c.level == "high", UserMemory.importance_level != "high")
    return (
        update(UserMemory)
        .where(UserMemory.id == scored.c.id)
        .values(
            frequency_score=scored.c.frequency,
            recency_score=scored.c.recency,
            impact_score=scored.c.impact,
            importance_score=scored.c.score,
            importance_level=scored.c.level,
            scored_at=now_param,
            escalated_at=case(
                (crossing, now_param),
                (scored.c.level != "high", None),
                else_=UserMemory.escalated_at,
            ),
            escalation_acknowledged_at=case(
                (scored.c.level != "high", None), else_=UserMemory.escalation_acknowledged_at
            ),
        )
        .execution_options(synchronize_session=False)
    )


# The Settings fields the scoring SQL reads: the key of the built statements below.
SCORING_FIELDS = (
    "frequency_threshold",
    "frequency_half_life_days",
    "recency_half_life_days",
    "emotion_floor_min_weight",
    "emotion_recency_floor",
    "impact_threshold",
    "weight_frequency",
    "weight_recency",
    "weight_emotion",
    "weight_impact",
    "level_high",
    "level_medium",
    "score_history_min_delta",
)
_BUILT: dict[tuple[Any, ...], tuple[Any, Any]] = {}
_MAX_BUILT = 32  # settings rarely change in a process; tests build a few dozen


def ids_rescoring(settings: Settings, dialect: str) -> tuple[Any, Any]:
    """:func:`history_insert` and :func:`rescore_update` for one user's memories by id,
    built once per dialect and scoring settings; everything else is bound at execution
    (:func:`ids_rescoring_params`).

    Why: every tracked recall and every add rescores its few memories, and building
    these two statements (two ``scored_rows`` trees of some hundred SQL elements) cost
    Python five times what the database spent running them: profiled with pyinstrument
    over 100 ``track_hits`` of 10 hits on SQLite, 5.7 of 8.5 ms per call.
    """
    key = (dialect, *(getattr(settings, name) for name in SCORING_FIELDS))
    built = _BUILT.get(key)
    if built is None:
        ids = one_of_bound(dialect, UserMemory.id, "rescore_ids")
        where = and_(UserMemory.user_id == bindparam("rescore_user", type_=String()), ids)
        # "raw": executed with parameters, an ORM INSERT would be a bulk INSERT of them.
        built = (
            history_insert(settings, None, where, None).execution_options(dml_strategy="raw"),
            rescore_update(settings, None, where),
        )
        if len(_BUILT) >= _MAX_BUILT:
            _BUILT.clear()
        _BUILT[key] = built
    return built


def ids_rescoring_params(
    user_id: str, ids: Sequence[int], now: datetime, reason: str
) -> dict[str, Any]:
    """The values :func:`ids_rescoring`'s statements are executed with."""
    return {
        "rescore_user": user_id,
        "rescore_ids": list(ids),
        "score_now": now,
        "history_now": now,
        "update_now": now,
        "history_reason": reason,
    }
