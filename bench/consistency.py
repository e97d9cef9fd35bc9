"""What must hold for one user's stored memories however their writes interleaved.

``python -m bench.hammer`` checks these after its concurrent writes: a count kept by
increments (the user's memory count and total length, the terms' document frequencies,
the link counts) that a lost update or a missed decrement put out of step with the rows
it counts, or an index row out of step with its memory, shows up here, where no single
request's answer would show it. Each check counts the rows that break it; all zero is
consistent.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import ColumnElement, Select, and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from models import (
    MemoryAssociation,
    MemoryTerm,
    MemoryTermStat,
    MemoryTopic,
    MemoryUser,
    UserMemory,
)
from services.core.settings import Settings
from services.repositories.dialect.seam import dialect_of
from services.scoring.scorer import ImportanceScorer


def _user_totals(user_id: str) -> Select[int]:
    """The user's row against its memories: count and total indexed length."""
    m, u = UserMemory, MemoryUser
    count = select(func.count()).where(m.user_id == user_id).scalar_subquery()
    length = (
        select(func.coalesce(func.sum(m.doc_length), 0)).where(m.user_id == user_id)
    ).scalar_subquery()
    return (
        select(func.count())
        .select_from(u)
        .where(u.user_id == user_id, or_(u.memory_count != count, u.total_doc_length != length))
    )


def _document_frequencies(user_id: str) -> Select[int]:
    """Each term's df against the postings that hold it."""
    st, t = MemoryTermStat, MemoryTerm
    held = select(func.count()).where(t.user_id == st.user_id, t.term == st.term).scalar_subquery()
    return select(func.count()).select_from(st).where(st.user_id == user_id, st.df != held)


def _unstated_terms(user_id: str) -> Select[int]:
    """Postings of a term that has no frequency row."""
    st, t = MemoryTermStat, MemoryTerm
    stated = select(st.term).where(st.user_id == t.user_id, st.term == t.term).exists()
    return select(func.count()).select_from(t).where(t.user_id == user_id, ~stated)


def _document_lengths(user_id: str) -> Select[int]:
    """Each memory's indexed length against the term counts of its postings."""
    m, t = UserMemory, MemoryTerm
    summed = (
        select(func.coalesce(func.sum(t.tf), 0))
        .where(t.user_id == m.user_id, t.memory_id == m.id)
        .scalar_subquery()
    )
    return select(func.count()).select_from(m).where(m.user_id == user_id, m.doc_length != summed)


def _link_counts(user_id: str) -> Select[int]:
    """Each memory's ``associated_count`` against its links."""
    m, a = UserMemory, MemoryAssociation
    links = (
        select(func.count())
        .where(a.user_id == m.user_id, or_(a.memory_id_a == m.id, a.memory_id_b == m.id))
        .scalar_subquery()
    )
    return (
        select(func.count()).select_from(m).where(m.user_id == user_id, m.associated_count != links)
    )


def _topic_rows(user_id: str, dialect: str) -> Select[int]:
    """Each memory's ``memory_topics`` rows against its ``topics`` list (links and the
    newest memories of a topic are found through the rows)."""
    m, tp = UserMemory, MemoryTopic
    rows = select(func.count()).where(tp.user_id == m.user_id, tp.memory_id == m.id)
    length = getattr(func, "jsonb_array_length" if dialect == "postgresql" else "json_array_length")
    return (
        select(func.count())
        .select_from(m)
        .where(m.user_id == user_id, length(m.topics) != rows.scalar_subquery())
    )


def _frequency_counts(user_id: str) -> Select[int]:
    """Frequency is every mention and every recall: ``mention_count + recall_count``."""
    m = UserMemory
    broken: ColumnElement[bool] = or_(
        m.frequency_count != m.mention_count + m.recall_count, m.mention_count < 1
    )
    return select(func.count()).select_from(m).where(m.user_id == user_id, broken)


def _dangling_successors(user_id: str) -> Select[int]:
    """A superseded memory points at a memory of the same user that exists."""
    m = UserMemory
    newer = aliased(UserMemory)
    exists = (
        select(newer.id).where(and_(newer.user_id == m.user_id, newer.id == m.superseded_by_id))
    ).exists()
    return (
        select(func.count())
        .select_from(m)
        .where(m.user_id == user_id, m.superseded_by_id.is_not(None), ~exists)
    )


STALE_SCORES = "scores as of scored_at"
CHECKS: dict[str, Callable[[str, str], Select[int]]] = {
    "user count and length": lambda user, _: _user_totals(user),
    "document frequencies": lambda user, _: _document_frequencies(user),
    "postings without a frequency": lambda user, _: _unstated_terms(user),
    "document lengths": lambda user, _: _document_lengths(user),
    "topic rows": _topic_rows,
    "link counts": lambda user, _: _link_counts(user),
    "frequency = mentions + recalls": lambda user, _: _frequency_counts(user),
    "superseded by a missing memory": lambda user, _: _dangling_successors(user),
}


# Scores are stored as float8 (REAL on SQLite) after the same arithmetic in SQL.
SCORE_TOLERANCE = 1e-6


async def stale_scores(session: AsyncSession, user_id: str, settings: Settings) -> int:
    """Memories whose stored score is not what ImportanceScorer makes of the row as of
    its ``scored_at``: a write that changed a score's input (a count, a link, an
    emotion) without rescoring the memory in the same transaction."""
    scorer = ImportanceScorer(settings)
    stale = 0
    rows = await session.scalars(select(UserMemory).where(UserMemory.user_id == user_id))
    for memory in rows:
        if memory.scored_at is None:
            stale += 1
            continue
        expected = scorer.breakdown(memory, memory.scored_at).score
        stale += abs(memory.importance_score - expected) > SCORE_TOLERANCE
    return stale


async def inconsistencies(
    session: AsyncSession, user_id: str, settings: Settings
) -> dict[str, int]:
    """Rows breaking each check, for the checks some row breaks."""
    dialect = dialect_of(session)
    found = {
        name: int((await session.execute(check(user_id, dialect))).scalar_one())
        for name, check in CHECKS.items()
    }
    found[STALE_SCORES] = await stale_scores(session, user_id, settings)
    return {name: n for name, n in found.items() if n}
