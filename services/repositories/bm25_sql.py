"""The BM25 candidate query: one fixed statement per dialect, the query's terms as data.

    score(d) = Σ_t w_t · tf_{t,d} · (k1 + 1) / (tf_{t,d} + k1 · (1 − b + b · |d| / avgdl))

(services/relevance.py holds the formula and w_t = idf_t × field weight.) The terms and
their weights travel as one array pair on PostgreSQL and one JSON object on SQLite.

Why text and not a SQLAlchemy expression: the expression form needed a ``CASE`` arm per
query term, so every term count was a new statement to build, hash and compile, and
every posting row evaluated the whole ``CASE``; profiled at 10k memories per user, the
Python side of that one statement cost twice what PostgreSQL spent answering it (issue 5).
Here the statement text never changes.

PostgreSQL scans each query term's postings on its own (``unnest(:terms, :weights)``
and a LATERAL range scan of the (user_id, term) primary key per term), so every posting
row carries its term's weight as a plain column. The earlier form read all the terms'
postings with ``term = ANY(:terms)`` and looked each row's weight up with
``array_position``, a string search per posting: on the bench's 10k-memory user the
statement's p99 over 100 bench queries was 33 ms that way and 24 ms this way, with the
same 200 winners for every query (issue 5). (Joining ``unnest`` to the postings
without LATERAL sent the planner to a parallel scan of every posting for queries of
many common terms.)

On both databases the filters (types, superseded) apply to the summed memories, not to
each posting: a common term has thousands of postings but the sums are per memory
(SQLite: 12% off the statement's mean on the bench's 10k-memory user).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from sqlalchemy import BigInteger, Float, column, text
from sqlalchemy.sql.selectable import TextualSelect

from models import UserMemory

# Every number is cast to float8 on PostgreSQL: an untyped parameter next to an integer
# column would be inferred integer, and a numeric one makes the sum numeric (measured 2x
# slower).
_PG_SCORE = """q.w * t.tf * CAST(:k1_plus_1 AS FLOAT8) / (t.tf + CAST(:k1 AS FLOAT8)
    * (CAST(:one_minus_b AS FLOAT8) + CAST(:b_per_avgdl AS FLOAT8) * t.doc_length))"""
_PG_SUMS = f"""SELECT p.memory_id, sum(p.part) AS score
FROM unnest(CAST(:terms AS VARCHAR[]), CAST(:weights AS FLOAT8[])) AS q(term, w)
CROSS JOIN LATERAL (
  SELECT t.memory_id, {_PG_SCORE} AS part
  FROM memory_terms AS t WHERE t.user_id = :user_id AND t.term = q.term) AS p
GROUP BY p.memory_id"""
_PG_TYPES = "memory_type = ANY(CAST(:types AS VARCHAR[]))"

# CROSS JOIN keeps the few query terms as the outer loop on SQLite, each probing the
# primary key; ``+ 0`` keeps its planner off the (user_id, memory_id) index (see
# services/repositories/dialect.group_key).
_SQLITE_SUMS = """SELECT t.memory_id + 0 AS memory_id, sum(q.value * t.tf * :k1_plus_1
    / (t.tf + :k1 * (:one_minus_b + :b_per_avgdl * t.doc_length))) AS score
FROM json_each(:weights) AS q
CROSS JOIN memory_terms AS t
WHERE t.user_id = :user_id AND t.term = q.key
GROUP BY t.memory_id + 0"""
_SQLITE_TYPES = "memory_type IN (SELECT value FROM json_each(:types))"


@lru_cache(maxsize=16)
def bm25_statement(dialect: str, with_types: bool, current_only: bool) -> TextualSelect:
    """The statement for one dialect and filter shape (built once, then reused).

    ``with_types`` keeps memories of the given types; ``current_only`` leaves out
    superseded memories through the few ids of ``ix_user_memories_user_superseded_by``
    (postings carry no such flag).
    """
    pg = dialect == "postgresql"
    filters = []
    if with_types:
        types = _PG_TYPES if pg else _SQLITE_TYPES
        filters.append(
            f"g.memory_id IN (SELECT id FROM user_memories WHERE user_id = :user_id AND {types})"
        )
    if current_only:
        filters.append(
            "g.memory_id NOT IN (SELECT id FROM user_memories"
            " WHERE user_id = :user_id AND superseded_by_id IS NOT NULL)"
        )
    where = f"\nWHERE {' AND '.join(filters)}" if filters else ""
    scored = (
        f"SELECT g.memory_id, g.score FROM ({_PG_SUMS if pg else _SQLITE_SUMS}) AS g{where}"
        "\nORDER BY g.score DESC, g.memory_id DESC\nLIMIT :limit"
    )
    # The ranking columns of the winners come along: one round trip instead of two.
    m = UserMemory.__table__.c
    return text(
        f"SELECT s.memory_id, s.score, m.content, m.importance_score, m.created_at,"
        f" m.source, m.memory_type\nFROM ({scored}) AS s\n"
        "JOIN user_memories AS m ON m.id = s.memory_id\n"
        "ORDER BY s.score DESC, s.memory_id DESC"
    ).columns(
        column("memory_id", BigInteger()),
        column("score", Float()),
        m.content,
        m.importance_score,
        m.created_at,
        m.source,
        m.memory_type,
    )


@dataclass(frozen=True)
class Bm25Query:
    """One BM25 candidate search: ``term_weights`` holds idf × field weight per term."""

    user_id: str
    term_weights: Mapping[str, float]
    k1: float
    b: float
    avg_doc_length: float
    limit: int
    types: Sequence[str] = ()
    current_only: bool = False


def bm25_parameters(dialect: str, q: Bm25Query) -> dict[str, Any]:
    """The bound values of :func:`bm25_statement` for one query."""
    params: dict[str, Any] = {
        "user_id": q.user_id,
        "k1": q.k1,
        "k1_plus_1": q.k1 + 1.0,
        "one_minus_b": 1.0 - q.b,
        "b_per_avgdl": q.b / max(q.avg_doc_length, 1e-9),
        "limit": q.limit,
    }
    if dialect == "postgresql":
        params["terms"] = list(q.term_weights)
        params["weights"] = [float(w) for w in q.term_weights.values()]
        if q.types:
            params["types"] = list(q.types)
    else:
        params["weights"] = json.dumps({t: float(w) for t, w in q.term_weights.items()})
        if q.types:
            params["types"] = json.dumps(list(q.types))
    return params
