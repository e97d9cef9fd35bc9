"""What scoring a message produces."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from services.context.weights import Dimension

Method = Literal["rule", "llm", "cache"]


@dataclass(frozen=True)
class MessageScore:
    """A message's importance (0-10), its five dimensions, confidence and method.

    ``method`` is ``rule`` (the rule layer), ``llm`` (asked the LLM now) or ``cache`` (an
    earlier LLM answer for the same message and task).
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
