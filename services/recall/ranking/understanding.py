"""Everything recall derives from the query text alone, computed once per recall.

The index terms are those of the query's *content*: its time expression when wholly past
(matched by the temporal signal against when each memory was said) and the words that only ask for a
recap of the conversation ("what did I *mention*", 「我*提到*了哪些事」: ``RECAP_WORDS``)
are cut out of the text first, so 「3月4日」 does not match every memory that names the
4th of some month, and "What did I tell you yesterday?" is a question about yesterday
alone (``pure_time``). The query's urgency and feelings (services/recall/ranking/feelings.py)
are read from the whole text.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo

from services.recall.ranking.feelings import query_feelings
from services.recall.ranking.phrases import QueryPhrases, query_phrases
from services.recall.ranking.query_types import QueryIntent, classify
from services.recall.ranking.time_expressions import TimeExpression, find_time_expression
from services.text.analysis import TextAnalyzer
from services.text.language import chinese_share

# Words that ask what was said rather than about something said: the verbs of telling,
# and the light nouns that stand for "whatever it was" (「哪些事」, "what things"). A
# generic list, not one of any dataset's questions.
RECAP_WORDS_EN = (
    *("mention", "mentioned", "mentions", "say", "said", "says", "tell", "told", "talk"),
    *("talked", "note", "noted", "notes", "write", "wrote", "written", "record", "recorded"),
    *("thing", "things", "stuff", "anything", "something"),
)
RECAP_WORDS_ZH = (
    *("说过", "说了", "提到", "提过", "记了", "记下", "聊过", "聊了", "讲过", "告诉", "说"),
    *("事情", "事儿", "东西", "事"),
    # Interrogatives jieba keeps as words (English ones are stopwords already): they ask,
    # they are not what is asked about.
    *("什么时候", "多少钱", "多少", "哪家", "哪里", "哪儿", "哪个", "哪些", "怎么样", "怎样"),
    *("什么样", "为什么", "几点", "几号", "多久"),
)
_RECAP = re.compile(
    r"\b(?:" + "|".join(RECAP_WORDS_EN) + r")\b|" + "|".join(RECAP_WORDS_ZH), re.IGNORECASE
)


@dataclass(frozen=True)
class QueryUnderstanding:
    """Index terms, query type, time expression, phrases and feelings of one query."""

    terms: Counter[str]  # of the content: no time expression, no recap words
    intent: QueryIntent
    time: TimeExpression | None
    phrases: QueryPhrases
    feelings: frozenset[str] = frozenset()  # services/recall/ranking/feelings.py
    chinese_share: float = 0.5  # its language (services/text/language.py)

    @property
    def pure_time(self) -> bool:
        """The query asks only what was said at a time ("What did I say yesterday?")."""
        return self.time is not None and not self.terms

    @property
    def searchable(self) -> bool:
        """Something to look for: content terms, a time or a feeling."""
        return bool(self.terms) or self.time is not None or bool(self.feelings)


def content_text(query: str, time: TimeExpression | None, now: datetime) -> str:
    """The query without its time expression and recap words (each replaced by a comma,
    so no character bigram spans the gap). Only a time wholly past is cut: 「明天」 and
    "next week" can only be found in what a memory says, never in when it was said."""
    past = time is not None and time.end is not None and time.end <= now
    text = query.replace(time.text, "，") if past and time is not None else query
    return _RECAP.sub("，", text)


def understand(
    query: str, analyzer: TextAnalyzer, now: datetime, zone: tzinfo = UTC
) -> QueryUnderstanding:
    """Analyse a query (CPU only: call it off the event loop); its days are ``zone``'s."""
    time = find_time_expression(query, now, zone)
    content = content_text(query, time, now)
    return QueryUnderstanding(
        terms=analyzer.query_terms(content),
        intent=classify(query, time),
        time=time,
        phrases=query_phrases(content, analyzer.tokenizer),
        feelings=query_feelings(query, analyzer.emotions),
        chinese_share=chinese_share(query),
    )
