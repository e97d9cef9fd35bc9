"""What each rule of the rule layer says a message is: its score on the seed's scale and
how sure the rule is (seed 000 ``RuleBasedScorer.RULE_PATTERNS``).

The seed's own rules keep the seed's numbers exactly. The project's further rules sit in
the band of the seed's LLM rubric ("评分标准（0-10分）") that describes them, with the
confidence the project has always given them:

==========  ==============================================================
9-10        the user's core request and explicit instructions; important
            architecture decisions; key files created or modified
7-8         configuration and environment; valuable code; the key results
            of a tool run
5-6         exploration, intermediate steps, ordinary operation records
3-4         low value: repeats, narration of what is being done
0-2         noise: pleasantries, bare confirmations
==========  ==============================================================

A message no rule recognises gets the seed's default, 5.0 with confidence 0.3.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class RuleKind:
    """One rule: the seed's category name, its score (0-10) and confidence (0-1)."""

    name: str
    category: str  # the seed's Chinese name, or the rubric line it follows
    score: float
    confidence: float


DEFAULT: Final = RuleKind("default", "无匹配", 5.0, 0.3)

KINDS: Final[dict[str, RuleKind]] = {
    kind.name: kind
    for kind in (
        # Seed 000's RULE_PATTERNS, its numbers as written.
        RuleKind("request", "核心需求", 9.0, 0.9),
        RuleKind("file_creation", "文件创建", 8.5, 0.95),
        RuleKind("important_modification", "重要修改", 8.0, 0.85),
        RuleKind("exploration", "探索操作", 6.0, 0.8),
        RuleKind("pleasantry", "寒暄", 1.0, 0.99),
        RuleKind("noise", "纯噪音", 0.5, 0.95),
        # The project's rules, each in the rubric band that describes it.
        RuleKind("decision", "重要的架构决策", 9.0, 0.85),
        RuleKind("command_run", "工具执行的关键结果", 7.5, 0.9),
        RuleKind("outcome", "工具执行的关键结果", 7.5, 0.75),
        RuleKind("config_key", "配置参数和环境信息", 7.0, 0.85),
        RuleKind("file_path", "配置参数和环境信息", 7.0, 0.85),
        RuleKind("code", "有价值的代码片段", 7.0, 0.8),
        RuleKind("error", "技术细节（错误信息）", 7.0, 0.75),
        RuleKind("operation_described", "一般性操作记录", 6.0, 0.75),
        RuleKind("tool_output", "一般性操作记录", 5.5, 0.6),
        RuleKind("narration", "过程性描述", 3.5, 0.6),  # seed example [6]: 3.5
        RuleKind("approval", "简单确认", 2.0, 0.8),  # seed example [4]: 2.0
    )
}

# Scores that stand as they are: nothing about a pleasantry makes it more important.
TERMINAL: Final = frozenset({"pleasantry", "noise"})
