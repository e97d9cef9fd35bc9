"""The newest memories of many topics: one fixed statement per dialect and chunk size.

Ingest links each new memory to the newest memories sharing its topics, so a batch of
1,000 statements asks for the newest few memories of about a thousand topics. Built as a
SQLAlchemy ``union_all`` of one limited subquery per topic, constructing and compiling
that statement cost more than running it (pyinstrument); these are plain text
whose shape depends only on the dialect and the number of topics.

- PostgreSQL: ``unnest`` of the topics ``CROSS JOIN LATERAL`` a limited range scan of
  the primary key (user_id, topic, memory_id) per topic: all topics in one statement.
- SQLite has no LATERAL: a UNION ALL of limited subqueries, one per topic (at most
  ``TOPICS_PER_STATEMENT``, well under its 500-term compound limit).

Either way a common topic costs no more than a rare one: at most ``limit`` index
entries are read per topic.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import BigInteger, String, column, text
from sqlalchemy.sql.selectable import TextualSelect

TOPICS_PER_STATEMENT = 100

_PG = """
SELECT q.topic, n.memory_id
FROM unnest(CAST(:topics AS VARCHAR[])) AS q(topic)
CROSS JOIN LATERAL (
  SELECT memory_id FROM memory_topics
  WHERE user_id = :user_id AND topic = q.topic
  ORDER BY memory_id DESC LIMIT :limit
) AS n"""

_SQLITE_PART = (
    "SELECT * FROM (SELECT topic, memory_id FROM memory_topics"
    " WHERE user_id = :user_id AND topic = :t{i} ORDER BY memory_id DESC LIMIT :limit)"
)

_COLUMNS = (column("topic", String()), column("memory_id", BigInteger()))


@lru_cache(maxsize=TOPICS_PER_STATEMENT + 1)
def _statement(dialect: str, topics: int) -> TextualSelect:
    """PostgreSQL's one statement (any number of topics), or SQLite's for ``topics``."""
    if dialect == "postgresql":
        return text(_PG).columns(*_COLUMNS)
    sql = "\nUNION ALL\n".join(_SQLITE_PART.format(i=i) for i in range(topics))
    return text(sql).columns(*_COLUMNS)


def newest_by_topic_queries(
    dialect: str, user_id: str, topics: Sequence[str], limit: int
) -> list[tuple[TextualSelect, dict[str, Any]]]:
    """The statements, with their values, whose (topic, memory_id) rows together give
    each of ``topics`` its ``limit`` newest memories: one on PostgreSQL, one per
    ``TOPICS_PER_STATEMENT`` topics on SQLite; none for no topics."""
    if not topics:
        return []
    common: dict[str, Any] = {"user_id": user_id, "limit": limit}
    if dialect == "postgresql":
        return [(_statement(dialect, 0), {**common, "topics": list(topics)})]
    queries = []
    for start in range(0, len(topics), TOPICS_PER_STATEMENT):
        part = topics[start : start + TOPICS_PER_STATEMENT]
        named = {f"t{i}": topic for i, topic in enumerate(part)}
        queries.append((_statement(dialect, len(part)), {**common, **named}))
    return queries
