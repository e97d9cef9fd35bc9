"""The query's own urgency and feeling (seed 004 §4.4: 紧急、困惑、烦躁、好奇; "urgent",
"worried"), matched against the emotion tags a memory was given when it was written.

「我有什么急事？」 and "What do I need to do urgently?" share no content word with
「明天早上八点要给周总监交迁移进度报告，急。」; what they share is urgency. The query is
read with the same emotion lexicon as memories (services/text/emotion_lexicon.py), and
each tag belongs to a family:

- ``urgent``: 急, 紧急, 尽快, 马上, urgent, asap, immediately, deadline, …
- ``important``: 很重要, 重要, 关键, 必须, important, crucial, vital, …
- ``worried``: 担心, 焦虑, 害怕, 压力, worried, anxious, stressed, …
- ``annoyed``: 烦躁, 烦恼, 头疼, 生气, frustrated, angry, upset, …
- ``sad``: 难过, 伤心, 失望, 崩溃, sad, disappointed, depressed, …

A memory tagged with the query's family matches 1.0; a neighbouring family less
(``RELATED``): an urgent question accepts what was marked very important (and the
reverse) at 0.8, a worry accepts annoyance or sadness at 0.5. Tags outside these families
(喜欢, love, 随便) are preferences and indifference, not states a question asks about.
困惑 and 好奇 are not in the write-time lexicon, so no memory carries them yet.
"""

from __future__ import annotations

from collections.abc import Iterable
from types import MappingProxyType

from services.text.emotion import EmotionAnalyzer

_FAMILY_TAGS: dict[str, tuple[str, ...]] = {
    "urgent": (
        *("急", "紧急", "急需", "火急", "刻不容缓", "着急", "焦急", "急迫", "迫切"),
        *("尽快", "立刻", "赶紧", "务必", "马上"),
        *("urgent", "asap", "emergency", "immediately", "deadline"),
    ),
    "important": (
        *("很重要", "重要", "关键", "必须"),
        *("critical", "very important", "crucial", "vital", "important", "essential"),
    ),
    "worried": (
        *("担心", "困扰", "焦虑", "恐惧", "害怕", "不安", "紧张", "压力"),
        *("worried", "worry", "anxious", "nervous", "afraid", "scared", "stressed"),
        *("overwhelmed", "terrified"),
    ),
    "annoyed": (
        *("烦躁", "烦恼", "头疼", "生气", "愤怒", "讨厌"),
        *("frustrated", "angry", "furious", "upset", "hate"),
    ),
    "sad": (
        *("难过", "伤心", "痛苦", "难受", "失望", "委屈", "后悔", "崩溃", "绝望"),
        *("sad", "disappointed", "depressed"),
    ),
}
FAMILY_OF = MappingProxyType({tag: family for family, tags in _FAMILY_TAGS.items() for tag in tags})
# (query family, memory family) → match; a family matches itself at 1.0.
RELATED = MappingProxyType(
    {
        ("urgent", "important"): 0.8,
        ("important", "urgent"): 0.8,
        ("worried", "annoyed"): 0.5,
        ("worried", "sad"): 0.5,
        ("annoyed", "worried"): 0.5,
        ("sad", "worried"): 0.5,
    }
)


# The tags that, said in a question, ask about that state (「我有什么急事？」, "What am I
# worried about?"). Modal and manner words (必须, 尽快, 马上, must, immediately, deadline)
# are left out: 「发布前必须拿到什么认证？」 asks for a certificate, not for what is urgent.
QUERY_CUES = frozenset(
    {
        *("急", "紧急", "着急", "急需", "urgent", "emergency", "asap"),
        *("很重要", "重要", "important", "very important", "crucial"),
        *("担心", "焦虑", "害怕", "不安", "紧张", "压力", "困扰"),
        *("worried", "worry", "anxious", "nervous", "afraid", "scared", "stressed"),
        *("烦躁", "烦恼", "头疼", "生气", "frustrated", "angry", "upset"),
        *("难过", "伤心", "失望", "sad", "disappointed"),
    }
)


def families(tags: Iterable[str]) -> frozenset[str]:
    """The families of these emotion tags (tags outside every family are left out)."""
    return frozenset(FAMILY_OF[t] for t in tags if t in FAMILY_OF)


def query_feelings(query: str, emotions: EmotionAnalyzer) -> frozenset[str]:
    """The feeling families a query asks about (「我有什么急事？」 → {"urgent"})."""
    return families(t for t in emotions.extract(query) if t in QUERY_CUES)


def feeling_match(asked: frozenset[str], tags: Iterable[str]) -> float:
    """How well a memory's emotion tags answer the query's families: the best pair."""
    if not asked:
        return 0.0
    held = families(tags)
    best = 0.0
    for want in asked:
        for have in held:
            best = max(best, 1.0 if want == have else RELATED.get((want, have), 0.0))
    return best
