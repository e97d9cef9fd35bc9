"""smart_compress (seed 000 "智能压缩方法"): keep what matters, not just what is recent.

1. System messages are always kept.
2. The most recent ``preserve_recent`` other messages are kept (the conversation stays
   coherent where it is going on), all of them when there are fewer. They are kept even
   when that goes past ``target_count``, as the seed does (its ``slots_available`` only
   limits the older messages); the result says so (:attr:`CompressionResult.target_exceeded_by`).
3. The rest are kept best score first while they fit the target count and/or the token
   budget; a message that does not fit is skipped and smaller ones may still fit.
4. Kept messages stay in their original order.

The token budget, unlike the target count, is a hard limit: nothing is ever over it.
The system messages must fit (else :class:`InvalidInput`), and a recent message that
cannot fit is dropped, newest kept first. ``compression_rate`` is the seed's: kept
messages / original messages.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from services.context.importance.message_score import MessageScore
from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import HEURISTIC, TokenEstimator
from services.core.errors import InvalidInput


@dataclass(frozen=True)
class CompressionResult:
    """Which messages were kept (indexes in order) and what it cost."""

    kept: list[int]
    dropped: list[int]
    original_tokens: int
    kept_tokens: int
    compression_rate: float
    # Kept beyond ``target_count`` because ``preserve_recent`` forces them (0: within it).
    target_exceeded_by: int = 0

    @property
    def original_count(self) -> int:
        """Messages before compression."""
        return len(self.kept) + len(self.dropped)


class _Budget:
    def __init__(self, count: int | None, tokens: int | None) -> None:
        self.count, self.tokens = count, tokens

    def fits(self, tokens: int, *, forced: bool = False) -> bool:
        count_ok = forced or self.count is None or self.count >= 1
        return count_ok and (self.tokens is None or tokens <= self.tokens)

    def take(self, tokens: int) -> None:
        if self.count is not None:
            self.count -= 1
        if self.tokens is not None:
            self.tokens -= tokens


def smart_compress(
    messages: Sequence[ChatMessage],
    scores: Sequence[MessageScore],
    *,
    target_count: int | None = None,
    budget_tokens: int | None = None,
    preserve_recent: int = 3,
    estimator: TokenEstimator = HEURISTIC,
    keep: Collection[int] = (),
) -> CompressionResult:
    """Choose the messages to keep; see the module docstring. ``scores[i]`` scores
    ``messages[i]``; ``keep`` are kept like system messages (a phase's summary). Raises
    InvalidInput when the system messages alone exceed a limit."""
    if len(scores) != len(messages):
        raise ValueError("one score per message")
    costs = [estimator.message(m) for m in messages]
    forced = set(keep)
    system = [i for i, m in enumerate(messages) if m.is_system or i in forced]
    others = [i for i, m in enumerate(messages) if not (m.is_system or i in forced)]
    system_tokens = sum(costs[i] for i in system)
    if target_count is not None and target_count < len(system):
        raise InvalidInput(
            f"target_count {target_count} is below the {len(system)} system messages (and "
            "phase summaries), which are always kept"
        )
    if budget_tokens is not None and budget_tokens < system_tokens:
        raise InvalidInput(
            f"budget_tokens {budget_tokens} is below the {system_tokens} tokens of the system "
            "messages (and phase summaries), which are always kept"
        )
    budget = _Budget(
        None if target_count is None else target_count - len(system),
        None if budget_tokens is None else budget_tokens - system_tokens,
    )
    kept = set(system)
    # All of them when there are fewer (seed: ``non_system_msgs[-preserve_recent:] if
    # len(non_system_msgs) >= preserve_recent else non_system_msgs``); a bare negative
    # slice start wrapped around and picked messages from the middle.
    recent = others[max(0, len(others) - preserve_recent) :] if preserve_recent > 0 else []
    older = others[: len(others) - len(recent)]
    for index in reversed(recent):  # newest first, should the token budget run out
        if budget.fits(costs[index], forced=True):
            budget.take(costs[index])
            kept.add(index)
    for index in sorted(older, key=lambda i: (scores[i].total, i), reverse=True):
        if budget.fits(costs[index]):
            budget.take(costs[index])
            kept.add(index)
    ordered = sorted(kept)
    return CompressionResult(
        kept=ordered,
        dropped=[i for i in range(len(messages)) if i not in kept],
        original_tokens=sum(costs),
        kept_tokens=sum(costs[i] for i in ordered),
        compression_rate=round(len(ordered) / len(messages), 4) if messages else 1.0,
        target_exceeded_by=0 if target_count is None else max(0, len(ordered) - target_count),
    )
