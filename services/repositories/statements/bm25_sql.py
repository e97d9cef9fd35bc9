"""The BM25 search: one fixed statement per dialect, corpus statistics included.

    w_t      = idf_t · field_weight_t,  idf_t = ln(1 + (N − df_t + 0.5) / (df_t + 0.5))
    score(d) = Σ_t w_t · tf_{t,d} · (k1 + 1) / (tf_{t,d} + k1 · (1 − b + b · |d| / avgdl))

(services/recall/relevance.py holds the formula.) The statement reads N and avgdl from the
user's ``memory_users`` row and each term's df from ``memory_term_stats``, weighs the
terms, sums their postings and joins the winners' ranking columns. It returns what
explaining the scores needs too (avgdl and every term's weight), as rows tagged by a
NULL ``memory_id``: a recall pays a round trip per statement, and statistics and
candidates used to be two. The query terms and their field weights travel as
one array pair on PostgreSQL and one JSON object on SQLite.

Why text and not a SQLAlchemy expression: the expression form needed a ``CASE`` arm per
query term, so every term count was a new statement to build, hash and compile, and
every posting row evaluated the whole ``CASE``; profiled at 10k memories per user, the
Python side of that one statement cost twice what PostgreSQL spent answering it.
Here the statement text never changes.

PostgreSQL scans each query term's postings on its own (a LATERAL range scan of the
(user_id, term) primary key per weighed term), so every posting row carries its term's
weight as a plain column. The earlier form read all the terms' postings with ``term =
ANY(:terms)`` and looked each row's weight up with ``array_position``, a string search
per posting: on the bench's 10k-memory user the statement's p99 over 100 bench queries
was 33 ms that way and 24 ms this way, with the same 200 winners for every query (issue
5). (Joining the terms to the postings without LATERAL sent the planner to a parallel
scan of every posting for queries of many common terms.)

Static pruning, as the query is answered (Carmel et al., SIGIR 2001): a query term is
read up to ``read_to`` = max(``bm25_term_postings_min``, ``bm25_term_postings_share`` × N)
postings (2,000 and 0.1 by default), its shortest memories' first. A term held by more
memories is read to its cutoff, the document length of its ``read_to``-th shortest
posting (memories of that very length are all kept); a longer memory gets nothing for
that term and keeps what its other terms give it. Postings are keyed by length within a
term (models/index.py), so the cutoff is one step of ``read_to`` entries into the term's
range and the sum stops there. For the usual tf of 1 the shortest memories are the ones
the term scores highest, and a term held by a tenth of the memories weighs little (idf
at most ln 10 ≈ 2.3, against 8-9 for a word said once in 10k memories).

Why: a recall read every posting of its terms, so a user's common topic made its
queries cost in proportion to the user's memories (the bench's skewed topic,
held by half of a tenant's memories, set recall's p99 at 100k memories, 277 ms).
``python -m bench.pruning --tenant 100000`` (152 bench queries, a bench loading beside
it) measured the statement's p90 / max and how much of the unpruned top 10 each bound
keeps, BM25's and the whole recall's: unpruned 139 / 237 ms; share 0.2: 86 / 126 ms,
98.9% / 97.8%; 0.1: 53 / 91 ms, 96.1% / 93.0%; 0.05: 35 / 56 ms, 91.8% / 87.5%. Every
query that keeps less than 70% of its BM25 top 10 at 0.1 is the skewed topic's
(「季度报告」, 「关于季度报告的事」, ...), whose every word is pruned.
LoCoMo's conversations (369-680 turns) never reach the 2,000 minimum, so its recall is
unchanged; forcing the bound down to a share of each conversation measures what pruning
costs in recall@k (``BM25_TERM_POSTINGS_MIN`` 110/55/11, about 20/10/2%): R@10 77.7 →
77.4/77.0/70.5.
``term_cutoffs`` comes back with the statistics, so explanations show which terms a
memory was too long to get.

On both databases the types filter applies to the summed memories, not to each posting:
a common term has thousands of postings but the sums are per memory (SQLite: 12% off the
statement's mean on the bench's 10k-memory user). Superseded memories are told apart
among the winners alone, by the rows the winners read anyway.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache
from typing import Any

from sqlalchemy import BigInteger, Boolean, Float, Integer, String, column, text
from sqlalchemy.sql.selectable import TextualSelect

from models import UserMemory
from services.repositories.neighbours import AroundHits

# No posting is longer: the cutoff of a term read whole (doc_length is an INTEGER column).
LONGEST = 2_147_483_647

# Every number is cast to float8 on PostgreSQL: an untyped parameter next to an integer
# column would be inferred integer, and a numeric one makes the sum numeric (measured 2x
# slower). N and df are cast before they meet 0.5 for the same reason.
_PG_STATISTICS = """u AS (
  SELECT CAST(memory_count AS FLOAT8) AS n,
    CAST(total_doc_length AS FLOAT8) / memory_count AS avgdl,
    CAST(:b AS FLOAT8) / GREATEST(CAST(total_doc_length AS FLOAT8) / memory_count, 1e-9)
      AS b_per_avgdl,
    GREATEST(CAST(:term_postings AS BIGINT),
      CAST(floor(CAST(:term_share AS FLOAT8) * memory_count) AS BIGINT)) AS read_to
  FROM memory_users WHERE user_id = :user_id AND memory_count > 0),
q AS (
  SELECT f.term, f.field_weight * ln(1.0 + (u.n - CAST(s.df AS FLOAT8) + 0.5)
    / (CAST(s.df AS FLOAT8) + 0.5)) AS w,
    CASE WHEN s.df > u.read_to THEN (
      SELECT x.doc_length FROM memory_terms AS x WHERE x.user_id = :user_id AND x.term = f.term
      ORDER BY x.doc_length LIMIT 1 OFFSET u.read_to - 1) END AS cutoff
  FROM unnest(CAST(:terms AS VARCHAR[]), CAST(:field_weights AS FLOAT8[]))
    AS f(term, field_weight)
  CROSS JOIN u
  JOIN memory_term_stats AS s ON s.user_id = :user_id AND s.term = f.term
  WHERE s.df > 0)"""
_PG_SUMS = f"""SELECT p.memory_id, sum(p.part) AS score
FROM q CROSS JOIN u CROSS JOIN LATERAL (
  SELECT t.memory_id, q.w * t.tf * CAST(:k1_plus_1 AS FLOAT8) / (t.tf + CAST(:k1 AS FLOAT8)
    * (CAST(:one_minus_b AS FLOAT8) + u.b_per_avgdl * t.doc_length)) AS part
  FROM memory_terms AS t WHERE t.user_id = :user_id AND t.term = q.term
    AND t.doc_length <= coalesce(q.cutoff, {LONGEST})) AS p
GROUP BY p.memory_id"""
_PG_TYPES = "memory_type = ANY(CAST(:types AS VARCHAR[]))"

# The anchors' neighbours (services/repositories/neighbours.py: AroundHits picks the
# same anchors, NeighbourRepository.around walks the same sides on SQLite): per anchor
# and side, a range scan of ix_user_memories_user_created over the window with a LIMIT.
_PG_ANCHORS = """anchors AS (
  SELECT c.memory_id, c.created_at, c.conversation_id FROM candidates AS c
  WHERE c.score > 0 AND c.conversation_id IS NOT NULL
    AND c.score / (SELECT max(score) FROM candidates) >= CAST(:min_relevance AS FLOAT8)
  ORDER BY c.score DESC, c.memory_id DESC
  LIMIT :anchors)"""
_PG_SIDE = """(SELECT n.id, n.content, n.importance_score, n.created_at, n.conversation_id,
    n.memory_type, n.role, {before} AS before
  FROM user_memories AS n
  WHERE n.user_id = :user_id AND n.created_at BETWEEN {low} AND {high}
    AND (n.created_at {cmp} a.created_at OR n.id {cmp} a.memory_id)
    AND n.id <> a.memory_id AND n.conversation_id = a.conversation_id{filters}
  ORDER BY n.created_at {order}, n.id {order}
  LIMIT :radius)"""


def _pg_neighbours(filters: str) -> str:
    window = "CAST(:window AS INTERVAL)"
    before = _PG_SIDE.format(
        before="TRUE",
        low=f"a.created_at - {window}",
        high="a.created_at",
        cmp="<",
        order="DESC",
        filters=filters,
    )
    after = _PG_SIDE.format(
        before="FALSE",
        low="a.created_at",
        high=f"a.created_at + {window}",
        cmp=">",
        order="ASC",
        filters=filters,
    )
    return (
        "SELECT s.id, CAST(NULL AS FLOAT8), s.content, s.importance_score, s.created_at,"
        " s.conversation_id, s.memory_type, s.role, CAST(NULL AS VARCHAR), a.memory_id,"
        " s.before,"
        " CAST(NULL AS INTEGER), CAST(NULL AS BIGINT)\n"
        f"FROM anchors AS a CROSS JOIN LATERAL (\n{before}\nUNION ALL\n{after}) AS s"
    )


# SQLite's OFFSET cannot name an outer column: ``read_to`` comes from a subquery of its
# own (uncorrelated, so evaluated once).
# CROSS JOIN keeps the few query terms as the outer loop on SQLite, each probing the
# primary key; ``+ 0`` keeps its planner off the (user_id, memory_id) index (see
# services/repositories/dialect.group_key). ``ln`` is SQLite's math function, or
# services/core/db.py's stand-in on builds without them.
_SQLITE_STATISTICS = """u AS (
  SELECT CAST(memory_count AS REAL) AS n,
    CAST(total_doc_length AS REAL) / memory_count AS avgdl,
    :b / MAX(CAST(total_doc_length AS REAL) / memory_count, 1e-9) AS b_per_avgdl,
    MAX(:term_postings, CAST(:term_share * memory_count AS INTEGER)) AS read_to
  FROM memory_users WHERE user_id = :user_id AND memory_count > 0),
q AS (
  SELECT f.key AS term, f.value * ln(1.0 + (u.n - s.df + 0.5) / (s.df + 0.5)) AS w,
    CASE WHEN s.df > u.read_to THEN (
      SELECT x.doc_length FROM memory_terms AS x WHERE x.user_id = :user_id AND x.term = f.key
      ORDER BY x.doc_length LIMIT 1 OFFSET (SELECT read_to FROM u) - 1) END AS cutoff
  FROM json_each(:field_weights) AS f
  CROSS JOIN u
  CROSS JOIN memory_term_stats AS s
  WHERE s.user_id = :user_id AND s.term = f.key AND s.df > 0)"""
_SQLITE_SUMS = f"""SELECT t.memory_id + 0 AS memory_id, sum(q.w * t.tf * :k1_plus_1
    / (t.tf + :k1 * (:one_minus_b + u.b_per_avgdl * t.doc_length))) AS score
FROM q CROSS JOIN u
CROSS JOIN memory_terms AS t
WHERE t.user_id = :user_id AND t.term = q.term AND t.doc_length <= coalesce(q.cutoff, {LONGEST})
GROUP BY t.memory_id + 0"""
_SQLITE_TYPES = "memory_type IN (SELECT value FROM json_each(:types))"


# A superseded memory among the winners lends its score to the memory that replaced it
# (services/remembering/facts): "where do I live" matches "I live in Beijing", and "I moved to
# Shanghai" is the answer. The ``:successors`` best superseded winners are each replaced
# by the current memory of their fact slot (the newest, if several agree), which is where
# any chain of corrections ends: one probe of ix_user_memories_user_slot. A memory
# superseded by hand, without a slot, is replaced by its ``superseded_by_id`` if that one
# is current.
#
# Why among the winners: told apart by the winners' own rows, the superseded cost
# nothing more than the ``NOT IN`` of the user's superseded ids they replace. Two
# designs tried first, each timed against that statement over 150 bench queries x 3 on
# the bench's tenant-10k (PostgreSQL, alternating in one process; /tmp/scratch/ab_stmt.py,
# not committed): every sum kept in a CTE, the superseded ones followed link by link
# along ``superseded_by_id`` (the bench's users correct a fact dozens of times), p50
# 2.80 -> 4.76 ms; the same CTE with the slot probe, 3.14 -> 3.73 ms; this statement,
# 2.97 -> 2.98 ms. The price: the candidates are the current memories among the
# ``:limit`` best matches, a few fewer than ``:limit`` when some are superseded (LoCoMo's
# recall@k is unchanged).
_SUPERSEDED_HITS = """superseded_hits AS (
  SELECT memory_id, score, fact_slot, superseded_by_id FROM ranked
  WHERE superseded_by_id IS NOT NULL
  ORDER BY score DESC, memory_id DESC
  LIMIT :successors),
successors AS (
  SELECT h.memory_id AS origin, h.score, coalesce((
    SELECT c.id FROM user_memories AS c
    WHERE c.user_id = :user_id AND c.fact_slot = h.fact_slot AND c.superseded_by_id IS NULL
    ORDER BY c.created_at DESC, c.id DESC LIMIT 1), h.superseded_by_id) AS id
  FROM superseded_hits AS h)"""
_SUCCESSORS = """SELECT m.id, c.score, m.content, m.importance_score, m.created_at,
    m.conversation_id, m.memory_type, m.role, CAST(NULL AS VARCHAR), {null_bigint}, {null_bool},
    {null_int}, c.origin
FROM successors AS c JOIN user_memories AS m ON m.id = c.id
WHERE m.user_id = :user_id AND m.superseded_by_id IS NULL{types}"""


@lru_cache(maxsize=16)
def bm25_statement(dialect: str, with_types: bool, current_only: bool) -> TextualSelect:
    """The statement for one dialect and filter shape (built once, then reused).

    ``with_types`` keeps memories of the given types. ``current_only`` leaves the
    superseded memories among the ``:limit`` best out of the candidates (their rows say
    so; postings carry no such flag), and replaces the ``:successors`` best of them with
    the current memories that superseded them.

    Rows, told apart by which columns are NULL:

    - a candidate: ``memory_id``, its BM25 ``score`` and ranking columns;
    - the statistics (``memory_id`` NULL): avgdl in ``score`` with ``term`` NULL, and
      each weighed term with its weight in ``score`` and, if it was pruned, its
      ``cutoff`` (the longest document length read);
    - on PostgreSQL, a neighbour of an anchor (``anchor_id`` set, ``score`` NULL): its
      ranking columns and ``before``, whether it was said before the anchor. With
      ``:anchors`` 0 there are none; SQLite's are read by a second statement
      (services/repositories/search.py);
    - with ``current_only``, a successor (``via`` set): the current memory that
      replaced one of the ``:successors`` best superseded matches, with that match's
      score and its id in ``via``. With ``:successors`` 0 there are none.

    An unknown user returns no rows.
    """
    pg = dialect == "postgresql"
    filters = []
    if with_types:
        types = _PG_TYPES if pg else _SQLITE_TYPES
        filters.append(
            f"g.memory_id IN (SELECT id FROM user_memories WHERE user_id = :user_id AND {types})"
        )
    where = f"\nWHERE {' AND '.join(filters)}" if filters else ""
    scored = (
        f"SELECT g.memory_id, g.score FROM ({_PG_SUMS if pg else _SQLITE_SUMS}) AS g{where}"
        "\nORDER BY g.score DESC, g.memory_id DESC\nLIMIT :limit"
    )
    # The ranking columns of the winners come along: no second round trip for them.
    columns = "s.memory_id, s.score, m.content, m.importance_score, m.created_at, m.conversation_id"
    winners = f"FROM ({scored}) AS s\nJOIN user_memories AS m ON m.id = s.memory_id"
    ctes = [_PG_STATISTICS if pg else _SQLITE_STATISTICS]
    if current_only:
        # A superseded winner is told apart by its own row, read anyway: it is left out
        # of the candidates, and the best of them lend their scores to their successors.
        ctes += [
            f"ranked AS (\nSELECT {columns}, m.memory_type, m.role, m.fact_slot,"
            f" m.superseded_by_id\n"
            f"{winners})",
            "candidates AS (\nSELECT memory_id, score, content, importance_score, created_at,"
            " conversation_id, memory_type, role FROM ranked WHERE superseded_by_id IS NULL)",
            _SUPERSEDED_HITS,
        ]
    else:
        ctes.append(f"candidates AS (\nSELECT {columns}, m.memory_type, m.role\n{winners})")
    # PostgreSQL types a UNION's columns pair by pair: NULLs are cast so that no column
    # is typed text before the rows that give it a type.
    null_bigint, null_real, null_bool, null_int = (
        (f"CAST(NULL AS {t})" for t in ("BIGINT", "FLOAT8", "BOOLEAN", "INTEGER"))
        if pg
        else ("NULL",) * 4
    )
    parts = [
        "SELECT memory_id, score, content, importance_score, created_at, conversation_id,"
        " memory_type, role,"
        f" CAST(NULL AS VARCHAR) AS term, {null_bigint} AS anchor_id,"
        f" {null_bool} AS before, {null_int} AS cutoff, {null_bigint} AS via\nFROM candidates",
        f"SELECT {null_bigint}, u.avgdl, NULL, u.n, NULL, NULL, NULL, NULL, NULL, NULL, NULL,"
        " NULL, NULL\nFROM u",
        f"SELECT {null_bigint}, q.w, NULL, {null_real}, NULL, NULL, NULL, NULL, q.term, NULL,"
        " NULL, q.cutoff, NULL\nFROM q",
    ]
    if current_only:
        parts.append(
            _SUCCESSORS.format(
                null_bigint=null_bigint,
                null_bool=null_bool,
                null_int=null_int,
                types=f" AND m.{_PG_TYPES if pg else _SQLITE_TYPES}" if with_types else "",
            )
        )
    if pg:
        ctes.append(_PG_ANCHORS)
        neighbour_filters = ""
        if with_types:
            neighbour_filters += f" AND n.{_PG_TYPES}"
        if current_only:
            neighbour_filters += " AND n.superseded_by_id IS NULL"
        parts.append(_pg_neighbours(neighbour_filters))
    m = UserMemory.__table__.c
    sql = "WITH " + ",\n".join(ctes) + "\n" + "\nUNION ALL\n".join(parts)
    return text(sql).columns(
        column("memory_id", BigInteger()),
        column("score", Float()),
        m.content,
        m.importance_score,
        m.created_at,
        m.conversation_id,
        m.memory_type,
        m.role,
        column("term", String()),
        column("anchor_id", BigInteger()),
        column("before", Boolean()),
        column("cutoff", Integer()),
        column("via", BigInteger()),
    )


@dataclass(frozen=True)
class Bm25Query:
    """One BM25 search: ``field_weights`` holds each query term's field weight (1 for a
    word, less for a fallback), which the statement multiplies by the term's idf."""

    user_id: str
    field_weights: Mapping[str, float]
    k1: float
    b: float
    limit: int
    types: Sequence[str] = ()
    current_only: bool = False
    around: AroundHits | None = None  # the hits that lend their neighbours, if any
    # With ``current_only``: how many of the best superseded matches lend their score to
    # the current memory that replaced them.
    successors: int = 0
    # A term is read up to max(term_postings, term_share × the user's memories) postings,
    # its shortest memories' (the default reads every term whole).
    term_postings: int = LONGEST
    term_share: float = 1.0


def bm25_parameters(dialect: str, q: Bm25Query) -> dict[str, Any]:
    """The bound values of :func:`bm25_statement` for one query."""
    params: dict[str, Any] = {
        "user_id": q.user_id,
        "k1": q.k1,
        "k1_plus_1": q.k1 + 1.0,
        "one_minus_b": 1.0 - q.b,
        "b": q.b,
        "limit": q.limit,
        "term_postings": q.term_postings,
        "term_share": q.term_share,
    }
    if q.current_only:
        params["successors"] = q.successors
    if dialect == "postgresql":
        params["terms"] = list(q.field_weights)
        params["field_weights"] = [float(w) for w in q.field_weights.values()]
        if q.types:
            params["types"] = list(q.types)
        around = q.around or AroundHits(0, 1.0, 0, timedelta(0))
        params |= {
            "anchors": around.anchors if around.radius > 0 else 0,
            "min_relevance": around.min_relevance,
            "radius": around.radius,
            "window": around.window,
        }
    else:
        weights = {t: float(w) for t, w in q.field_weights.items()}
        params["field_weights"] = json.dumps(weights, ensure_ascii=False)
        if q.types:
            params["types"] = json.dumps(list(q.types))
    return params
