"""Query understanding: which kind of question a recall query is (seed 004 §4.3).

Seed 004 names six intents (technical, diagnostic, conversational, conceptual, procedural,
creative); a personal memory service adds two: ``temporal`` ("when did…", 「什么时候」,
or any time expression such as 「上周」) and ``personal`` (about the user or someone in
their life: "my sister", 「我的」, "What did Caroline…"). The type picks the fusion
weights (``RECALL_WEIGHTS_<TYPE>`` in settings).

The rules are cue lists tried in a fixed order; the first type with a cue in the query
wins, otherwise ``default``:

1. temporal: a question about time ("when", "what time", "how long ago", "what year",
   「什么时候」「哪天」「几号」「几点」「多久」「哪一年」) or a time expression.
2. diagnostic: something is wrong ("error", "bug", "crash", "fail", "broken",
   「报错」「错误」「故障」「失败」「崩溃」「出问题」).
3. procedural: how to do something ("how to", "how do I", "steps", "install",
   「怎么」「如何」「步骤」「方法」).
4. technical: code and systems ("code", "function", "API", "SQL", "database", "server",
   「代码」「函数」「数据库」「接口」「服务器」).
5. creative: designing or inventing ("design", "idea", "brainstorm", "come up with",
   「设计」「创意」「点子」「方案」).
6. conceptual: meaning and reasons ("what is", "what does … mean", "why", "explain",
   「什么是」「为什么」「原理」「意思」).
7. personal: first or second person, family words, or a name in the question ("I", "my",
   "you", "sister", a capitalised word after the first, 「我」「我的」「妈妈」「朋友」).
8. conversational: a follow-up that leans on what was just said ("that", "it", "again",
   "continue", "as I said", 「刚才」「继续」「那个」「还有呢」).

Personal comes late on purpose: "my code crashes" is diagnostic first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from services.recall.ranking.time_expressions import TimeExpression


class QueryType(StrEnum):
    """The kinds of recall query that have their own fusion weights."""

    TEMPORAL = "temporal"
    DIAGNOSTIC = "diagnostic"
    PROCEDURAL = "procedural"
    TECHNICAL = "technical"
    CREATIVE = "creative"
    CONCEPTUAL = "conceptual"
    PERSONAL = "personal"
    CONVERSATIONAL = "conversational"
    DEFAULT = "default"


def _english(*words: str) -> str:
    return r"\b(?:" + "|".join(words) + r")\b"


def _chinese(*words: str) -> str:
    return "|".join(words)


# In rule order; each pattern is searched case-insensitively.
RULES: tuple[tuple[QueryType, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.IGNORECASE))
    for kind, pattern in (
        (
            QueryType.TEMPORAL,
            _english(
                "when",
                "what time",
                "what date",
                "what day",
                "what year",
                "what month",
                "which year",
                "which month",
                "which day",
                "how long ago",
                "how long has",
                "how long did",
                "since when",
            )
            + "|"
            + _chinese(
                "什么时候",
                "啥时候",
                "哪天",
                "哪一天",
                "几号",
                "几点",
                "多久",
                "哪一年",
                "哪年",
                "哪个月",
                "几月",
                "何时",
            ),
        ),
        (
            QueryType.DIAGNOSTIC,
            _english(
                "error",
                "errors",
                "bug",
                "bugs",
                "crash",
                "crashes",
                "crashed",
                "fail",
                "fails",
                "failed",
                "failing",
                "broken",
                "exception",
                "traceback",
                "not working",
                "doesn't work",
                "troubleshoot",
                "debug",
            )
            + "|"
            + _chinese("报错", "错误", "故障", "失败", "崩溃", "出问题", "异常", "排查", "不工作"),
        ),
        (
            QueryType.PROCEDURAL,
            _english(
                "how to",
                "how do i",
                "how can i",
                "how should i",
                "steps",
                "step by step",
                "procedure",
                "install",
                "set up",
                "setup",
                "configure",
                "guide",
            )
            + "|"
            + _chinese("怎么", "怎样", "如何", "步骤", "方法", "流程", "教程", "安装", "配置"),
        ),
        (
            QueryType.TECHNICAL,
            _english(
                "code",
                "function",
                "class",
                "method",
                "api",
                "sql",
                "database",
                "query",
                "server",
                "python",
                "javascript",
                "algorithm",
                "http",
                "deploy",
                "library",
            )
            + "|"
            + _chinese("代码", "函数", "数据库", "接口", "服务器", "算法", "部署", "编程", "程序"),
        ),
        (
            QueryType.CREATIVE,
            _english("design", "idea", "ideas", "brainstorm", "come up with", "invent", "create")
            + "|"
            + _chinese("设计", "创意", "点子", "方案", "灵感", "构思"),
        ),
        (
            QueryType.CONCEPTUAL,
            _english(
                "what is",
                "what are",
                "what does",
                "why",
                "explain",
                "meaning",
                "mean",
                "concept",
                "theory",
                "principle",
            )
            + "|"
            + _chinese("什么是", "为什么", "原理", "意思", "概念", "解释", "理论"),
        ),
        (
            QueryType.PERSONAL,
            _english(
                "i",
                "me",
                "my",
                "mine",
                "we",
                "our",
                "you",
                "your",
                "sister",
                "brother",
                "mother",
                "mom",
                "father",
                "dad",
                "wife",
                "husband",
                "friend",
                "friends",
                "family",
                "kids",
                "son",
                "daughter",
                "partner",
                "boss",
                "colleague",
            )
            + "|"
            + _chinese(
                "我",
                "你",
                "妈妈",
                "爸爸",
                "母亲",
                "父亲",
                "老婆",
                "老公",
                "朋友",
                "家人",
                "孩子",
                "女儿",
                "儿子",
                "同事",
                "老板",
                "姐姐",
                "妹妹",
                "哥哥",
                "弟弟",
            ),
        ),
        (
            QueryType.CONVERSATIONAL,
            _english(
                "that",
                "it",
                "again",
                "continue",
                "as i said",
                "earlier",
                "just now",
                "the same",
                "what else",
            )
            + "|"
            + _chinese("刚才", "继续", "那个", "还有呢", "上次说", "之前说", "接着"),
        ),
    )
)
# A capitalised word after the first one names someone ("What did Caroline…"): personal.
_NAME = re.compile(r"(?<=\s)[A-Z][a-z]+(?:'s)?\b")


@dataclass(frozen=True)
class QueryIntent:
    """A query's type and the cue that decided it (for explanations)."""

    type: QueryType
    cue: str | None


def classify(query: str, time_expression: TimeExpression | None = None) -> QueryIntent:
    """The query's type by the documented rules (first match wins)."""
    for kind, pattern in RULES:
        found = pattern.search(query)
        if found:
            return QueryIntent(kind, found.group(0))
        if kind is QueryType.TEMPORAL and time_expression is not None:
            return QueryIntent(kind, time_expression.text)
        if kind is QueryType.PERSONAL and (name := _NAME.search(query)):
            return QueryIntent(kind, name.group(0))
    return QueryIntent(QueryType.DEFAULT, None)
