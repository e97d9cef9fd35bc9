"""Word lists used by :mod:`services.text.emotion`: keyword weights, degree adverbs, negators.

Weights are in 0..1 and express how much a memory mentioning the word should be treated as
urgent / important / emotionally charged.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

_LEXICON: dict[str, float] = {
    # From the design doc (seed 002 §3.3); these six weights are fixed by the design.
    "急": 1.0,
    "很重要": 0.9,
    "困扰": 0.8,
    "担心": 0.7,
    "想解决": 0.6,
    "无所谓": 0.1,
    # Chinese urgency / importance.
    "紧急": 1.0,
    "急需": 1.0,
    "火急": 1.0,
    "刻不容缓": 1.0,
    "着急": 0.9,
    "焦急": 0.9,
    "急迫": 0.9,
    "迫切": 0.9,
    "尽快": 0.8,
    "立刻": 0.8,
    "赶紧": 0.8,
    "务必": 0.8,
    "马上": 0.7,
    "重要": 0.75,
    "关键": 0.7,
    "必须": 0.7,
    # Chinese worry / distress.
    "崩溃": 0.9,
    "绝望": 0.9,
    "焦虑": 0.8,
    "恐惧": 0.8,
    "痛苦": 0.8,
    "烦恼": 0.7,
    "烦躁": 0.7,
    "头疼": 0.7,
    "害怕": 0.7,
    "难受": 0.7,
    "难过": 0.7,
    "伤心": 0.7,
    "生气": 0.7,
    "愤怒": 0.8,
    "压力": 0.6,
    "紧张": 0.6,
    "不安": 0.6,
    "失望": 0.6,
    "委屈": 0.6,
    "后悔": 0.6,
    # Chinese strong (incl. positive) feelings and caring.
    "兴奋": 0.6,
    "激动": 0.6,
    "感动": 0.6,
    "讨厌": 0.6,
    "在意": 0.6,
    "在乎": 0.6,
    "开心": 0.5,
    "高兴": 0.5,
    "关心": 0.5,
    "喜欢": 0.4,
    # Chinese indifference: low weight on purpose.
    "随便": 0.1,
    "都行": 0.1,
    # English urgency / importance.
    "urgent": 1.0,
    "asap": 1.0,
    "emergency": 1.0,
    "critical": 0.9,
    "very important": 0.9,
    "crucial": 0.85,
    "immediately": 0.8,
    "vital": 0.8,
    "important": 0.75,
    "essential": 0.7,
    "deadline": 0.7,
    # English worry / distress.
    "terrified": 0.9,
    "furious": 0.9,
    "anxious": 0.8,
    "overwhelmed": 0.8,
    "depressed": 0.8,
    "worried": 0.7,
    "worry": 0.7,
    "stressed": 0.7,
    "afraid": 0.7,
    "scared": 0.7,
    "frustrated": 0.7,
    "angry": 0.7,
    "nervous": 0.6,
    "upset": 0.6,
    "sad": 0.6,
    "disappointed": 0.6,
    "hate": 0.6,
    # English strong positive feelings.
    "love": 0.5,
    "excited": 0.5,
    "happy": 0.5,
    # English indifference.
    "don't care": 0.1,
    "whatever": 0.1,
}

DEFAULT_LEXICON: Mapping[str, float] = MappingProxyType(_LEXICON)
"""Keyword -> weight (0..1). Read-only; pass a custom mapping to EmotionAnalyzer to change."""

# Chinese degree adverbs directly before a keyword. Intensifiers x1.2, downtoners x0.6.
DEGREE_ADVERBS_ZH: Mapping[str, float] = MappingProxyType(
    {
        **dict.fromkeys(
            [
                "非常",
                "特别",
                "十分",
                "极其",
                "极度",
                "极为",
                "超级",
                "超",
                "太",
                "很",
                "好",
                "真",
                "真的",
                "挺",
                "相当",
                "格外",
                "万分",
                "实在",
                "那么",
                "这么",
                "更",
                "最",
            ],
            1.2,
        ),
        **dict.fromkeys(
            [
                "有点",
                "有点儿",
                "有一点",
                "有些",
                "稍微",
                "稍稍",
                "略微",
                "略",
                "稍",
                "一点",
                "一点点",
                "些许",
            ],
            0.6,
        ),
    }
)

# English degree modifiers (one or two words) within two words before a keyword.
DEGREE_ADVERBS_EN: Mapping[tuple[str, ...], float] = MappingProxyType(
    {
        **dict.fromkeys(
            [
                ("very",),
                ("really",),
                ("extremely",),
                ("so",),
                ("super",),
                ("too",),
                ("incredibly",),
                ("highly",),
                ("terribly",),
            ],
            1.2,
        ),
        **dict.fromkeys(
            [
                ("slightly",),
                ("somewhat",),
                ("a", "bit"),
                ("a", "little"),
                ("kind", "of"),
                ("sort", "of"),
                ("kinda",),
            ],
            0.6,
        ),
    }
)

# Chinese negators looked for in the 3 characters before a keyword (or before its adverb).
# 一点也不 / 并不 / 毫不 ... end in 不 and are caught by it; listed for documentation.
NEGATORS_ZH: tuple[str, ...] = (
    "一点也不",
    "一点都不",
    "没有",
    "无需",
    "无须",
    "不用",
    "不必",
    "毫不",
    "并不",
    "不",
    "没",
    "别",
)

# Words containing a negator character that do not negate what follows (不过 = "but",
# 特别 = "especially", 忍不住 = "can't help (worrying)" is affirmative, ...). They are masked
# out of the look-back window before searching for negators.
PSEUDO_NEGATIONS_ZH: tuple[str, ...] = (
    "不过",
    "不错",
    "不断",
    "不少",
    "不久",
    "不仅",
    "不管",
    "不论",
    "不然",
    "不如",
    "不得不",
    "差不多",
    "忍不住",
    "禁不住",
    "不由得",
    "没错",
    "特别",
    "区别",
    "别人",
    "分别",
    "级别",
    "类别",
    "告别",
    "个别",
    "别的",
    "离别",
)

NEGATORS_EN: frozenset[str] = frozenset(
    [
        "not",
        "no",
        "never",
        "nor",
        "without",
        "hardly",
        "barely",
        "cannot",
        "dont",
        "doesnt",
        "isnt",
        "arent",
        "wasnt",
        "didnt",
    ]
)
"""English negators (any word ending in "n't" also counts) within 3 words before a keyword."""

# Surface words whose Snowball stem collides with a keyword stem although the meaning differs:
# "import" -> "import" == stem("important"), "critic" -> stem("critical").
EN_STEM_FALSE_FRIENDS: frozenset[str] = frozenset(
    [
        "import",
        "imports",
        "imported",
        "importing",
        "importer",
        "critic",
        "critics",
        "criticism",
        "criticisms",
    ]
)
