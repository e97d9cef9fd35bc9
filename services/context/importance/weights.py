"""The five dimensions of a message's importance and their weights per task type.

Seed 000 ("评分维度设计" and "动态权重调整"): every dimension on the seed's 0-10 scale,
weighted per task type. The four content dimensions make the message's dimension score
(:func:`content_score`, their weighted mean); 时效性 is the seed's recency bonus
(:func:`recency_bonus`, up to +1.0 as ``TimeDecayScorer`` gives with the default 5%
weight), so recency is counted once, not in both places.
"""

from __future__ import annotations

from typing import Final, Literal

Dimension = Literal["relevance", "information", "operation", "decision", "recency"]
DIMENSIONS: Final[tuple[Dimension, ...]] = (
    "relevance",  # 任务相关性: closeness to the current task
    "information",  # 信息价值: paths, config keys, code, numbers, names
    "operation",  # 操作记录: files created / edited / deleted, commands run
    "decision",  # 决策节点: decisions, architecture choices, the user's requirements
    "recency",  # 时效性: newer messages get a small bonus
)

TaskType = Literal["default", "refactor", "debugging", "requirements"]
TASK_TYPES: Final[tuple[TaskType, ...]] = ("default", "refactor", "debugging", "requirements")
Weights = dict[Dimension, float]

TASK_TYPE_WEIGHTS: Final[dict[TaskType, Weights]] = {
    "default": {
        "relevance": 0.35,
        "information": 0.25,
        "operation": 0.20,
        "decision": 0.15,
        "recency": 0.05,
    },
    # 代码重构: relevance and the edit trail matter most.
    "refactor": {
        "relevance": 0.40,
        "information": 0.20,
        "operation": 0.30,
        "decision": 0.08,
        "recency": 0.02,
    },
    # Bug调试: error messages and stack traces are the information.
    "debugging": {
        "relevance": 0.35,
        "information": 0.30,
        "operation": 0.20,
        "decision": 0.10,
        "recency": 0.05,
    },
    # 需求分析: what was decided.
    "requirements": {
        "relevance": 0.30,
        "information": 0.25,
        "operation": 0.05,
        "decision": 0.35,
        "recency": 0.05,
    },
}

# The seed names task types in Chinese; both spellings are accepted.
TASK_TYPE_ALIASES: Final[dict[str, TaskType]] = {
    "代码重构": "refactor",
    "重构": "refactor",
    "bug调试": "debugging",
    "调试": "debugging",
    "debug": "debugging",
    "需求分析": "requirements",
    "requirements_analysis": "requirements",
    "默认": "default",
}


def resolve_task_type(task_type: str | None) -> TaskType:
    """The caller's task type (English or the seed's Chinese name); ``default`` when none.

    Never guessed from the task context: the seed's tables trade dimensions off against
    each other (refactoring nearly ignores decisions), so the caller chooses. Unknown names
    raise ValueError."""
    if not task_type:
        return "default"
    key = task_type.strip().lower()
    if key in TASK_TYPE_WEIGHTS:
        return key
    if key in TASK_TYPE_ALIASES:
        return TASK_TYPE_ALIASES[key]
    raise ValueError(f"unknown task_type {task_type!r}")


CONTENT: Final[tuple[Dimension, ...]] = DIMENSIONS[:4]
# The recency weight at which the bonus reaches the seed's +1.0 (the default table's 5%).
FULL_BONUS_WEIGHT: Final = 0.05


def content_score(dimensions: dict[Dimension, float], weights: Weights) -> float:
    """The weighted mean of relevance, information, operation and decision (0-10)."""
    total = sum(weights[d] for d in CONTENT)
    return round(sum(dimensions[d] * weights[d] for d in CONTENT) / total, 4)


def recency_bonus(recency: float, weights: Weights) -> float:
    """Seed ``TimeDecayScorer``: ``(i / (n − 1))²`` (``recency`` is it on 0-10), so the
    newest message gets +1.0. Scaled by the task type's 时效性 weight against the default
    5%: 代码重构 weighs it 2%, so its newest message gets +0.4."""
    return round(recency / 10.0 * weights["recency"] / FULL_BONUS_WEIGHT, 4)
