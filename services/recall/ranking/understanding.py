"""Everything recall derives from the query text alone, computed once per recall."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from services.recall.ranking.phrases import QueryPhrases, query_phrases
from services.recall.ranking.query_types import QueryIntent, classify
from services.recall.ranking.time_expressions import TimeExpression, find_time_expression
from services.text.analysis import TextAnalyzer


@dataclass(frozen=True)
class QueryUnderstanding:
    """Index terms, query type, time expression and phrases of one query."""

    terms: Counter[str]
    intent: QueryIntent
    time: TimeExpression | None
    phrases: QueryPhrases


def understand(query: str, analyzer: TextAnalyzer, now: datetime) -> QueryUnderstanding:
    """Analyse a query (CPU only: call it off the event loop)."""
    time = find_time_expression(query, now)
    return QueryUnderstanding(
        terms=analyzer.query_terms(query),
        intent=classify(query, time),
        time=time,
        phrases=query_phrases(query, analyzer.tokenizer),
    )
