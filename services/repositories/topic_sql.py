"""The newest memories of many topics: one fixed statement per dialect and chunk size.

Ingest links each new memory to the newest memories sharing its topics, so a batch of
1,000 statements asks for the newest few memories of about a thousand topics. Built as a
SQLAlchemy ``union_all`` of one limited subquery per topic, constructing and compiling
that statement cost more than running it (pyinstrument, issue 5); these are plain text
whose shape depends only on the dialect and the number of topics.

- PostgreSQL: ``unnest`` of the topics ``CROSS JOIN LATERAL`` a limited range scan of
  the primary key (user_id, topic, memory_id) per topic: all topics in one statement.
- SQLite has no LATERAL: a UNION ALL of limited subqueries, one per topic (at most
  ``TOPICS_PER_STATEMENT``, well under its 500-term compound limit).

Either way a common topic costs no more than a rare one: at most ``limit`` index
entries are read per topic.
"""

from __future__ import annotations

from functools import lru_cache

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


@lru_cache(maxsize=TOPICS_PER_STATEMENT + 1)
def newest_by_topic_statement(dialect: str, topics: int) -> TextualSelect:
    """(topic, memory_id) rows: per topic its ``:limit`` newest memories.

    PostgreSQL binds ``:topics`` (a list, any length: ``topics`` is ignored); SQLite
    binds ``:t0`` … ``:t{topics-1}``.
    """
    if dialect == "postgresql":
        sql = _PG
    else:
        sql = "\nUNION ALL\n".join(_SQLITE_PART.format(i=i) for i in range(topics))
    return text(sql).columns(column("topic", String()), column("memory_id", BigInteger()))
