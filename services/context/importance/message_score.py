"""What scoring a message produces."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from services.context.importance.weights import Dimension

Method = Literal["rule", "llm", "cache"]


@dataclass(frozen=True)
class MessageScore:
    """A message's importance (0-10) on seed 000's scale, and how it was reached.

    ``total = clamp(content + recency_bonus, 0, 10)`` where ``content`` is the rule score,
    or with an LLM answer ``confidence · rule_score + (1 − confidence) · llm_score``
    (:mod:`services.context.importance.message_scorer`). ``method`` is ``rule`` (the rule layer),
    ``llm`` (asked the LLM now) or ``cache`` (an earlier LLM answer for the same message
    and task). ``rule_kind`` is the rule that decided the rule score (``default`` when
    none did). ``pending``: the LLM will be asked in the background (seed 000
    ``async_score_and_compress``).
    """

    index: int
    total: float
    dimensions: dict[Dimension, float]
    confidence: float
    method: Method
    content_hash: str
    rules: tuple[str, ...] = ()
    reason: str | None = None
    message_id: str | None = field(default=None)
    rule_kind: str = "default"
    rule_score: float = 5.0
    llm_score: float | None = None
    recency_bonus: float = 0.0
    pending: bool = False
