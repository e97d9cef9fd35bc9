"""The phase switch of seed 000 ("Phase切换时自动压缩", ``switch_to_next_phase``).

Messages may say which phase of work they belong to (``phase``); ``current_phase`` names
the one in progress (by default the phase of the last message that names one). When
compressing, each earlier phase is condensed as the seed does when a phase ends:

1. its messages scoring at least ``PHASE_KEEP_SCORE`` (8.0, the seed's threshold) stay;
2. the rest become one assistant message, ``[Phase <name> 总结]`` followed by the phase's
   summary (the LLM's when one is configured, else extractive), placed after the phase's
   last message; it is kept like a system message by the compression that follows.

The seed scores a phase's messages against the phase's goal; here they are scored as the
rest of the conversation is (the task context, the LLM's prompt naming the current phase).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from services.context.importance.message_score import MessageScore
from services.context.rolling_summary.writer import write_summary
from services.context.shared.llm_client import ChatCompletionsClient
from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import TokenEstimator

PHASE_SUMMARY_NAME: Final = "phase_summary"
PHASE_SUMMARY_TOKENS: Final = 400


@dataclass(frozen=True)
class PhaseSwitch:
    """How one earlier phase was condensed."""

    phase: str
    kept: list[int]  # its messages at or above the threshold
    summarized: list[int]  # its messages folded into the summary
    summary: ChatMessage | None
    method: str  # "llm" or "extractive" ("" when nothing was summarised)


@dataclass
class Condensed:
    """The conversation after the phase switch, with where each message came from."""

    messages: list[ChatMessage] = field(default_factory=list)
    scores: list[MessageScore] = field(default_factory=list)
    origin: list[int | None] = field(default_factory=list)  # None: a phase summary
    summaries: list[int] = field(default_factory=list)  # positions of the summaries
    switches: list[PhaseSwitch] = field(default_factory=list)


def current_phase(messages: Sequence[ChatMessage], requested: str | None) -> str | None:
    """The phase in progress: the one asked for, else the last message's that names one."""
    if requested:
        return requested
    return next((m.phase for m in reversed(messages) if m.phase), None)


def earlier_phases(messages: Sequence[ChatMessage], current: str | None) -> dict[str, list[int]]:
    """Indexes of the non-system messages of every phase but the current, in order."""
    found: dict[str, list[int]] = {}
    for index, message in enumerate(messages):
        if message.phase and message.phase != current and not message.is_system:
            found.setdefault(message.phase, []).append(index)
    return found


class PhaseSwitcher:
    """Condenses earlier phases; see the module docstring."""

    def __init__(
        self,
        estimator: TokenEstimator,
        keywords: Callable[[str], list[str]],
        llm: ChatCompletionsClient | None = None,
    ) -> None:
        self.estimator = estimator
        self.keywords = keywords
        self.llm = llm

    async def condense(
        self,
        messages: Sequence[ChatMessage],
        scores: Sequence[MessageScore],
        requested: str | None,
        threshold: float,
    ) -> Condensed | None:
        """The conversation with its earlier phases condensed; None when there are none."""
        phases = earlier_phases(messages, current_phase(messages, requested))
        if not phases:
            return None
        switches: dict[int, PhaseSwitch] = {}  # by the phase's last message
        for phase, indexes in phases.items():
            kept = [i for i in indexes if scores[i].total >= threshold]
            folded = [i for i in indexes if scores[i].total < threshold]
            summary, method = await self._summary(phase, messages, scores, folded)
            switches[indexes[-1]] = PhaseSwitch(phase, kept, folded, summary, method)
        gone = {i for s in switches.values() for i in s.summarized}
        out = Condensed(switches=list(switches.values()))
        for index, message in enumerate(messages):
            if index not in gone:
                out.messages.append(message)
                out.scores.append(scores[index])
                out.origin.append(index)
            switch = switches.get(index)
            if switch is not None and switch.summary is not None:
                out.summaries.append(len(out.messages))
                out.messages.append(switch.summary)
                out.scores.append(scores[index])  # never ranked: kept like a system message
                out.origin.append(None)
        return out

    async def _summary(
        self,
        phase: str,
        messages: Sequence[ChatMessage],
        scores: Sequence[MessageScore],
        folded: Sequence[int],
    ) -> tuple[ChatMessage | None, str]:
        if not folded:
            return None, ""
        title = f"[Phase {phase} 总结]"
        budget = PHASE_SUMMARY_TOKENS - self.estimator.count(title)
        items = [(i, messages[i], scores[i].total) for i in folded]
        written = await write_summary(self.llm, items, None, budget, self.estimator)
        bullets = [f"- {text}" for _, text in written.summary.bullets] if written else []
        content = "\n".join([title, *bullets])
        method = written.method if written else "extractive"
        return ChatMessage("assistant", content, name=PHASE_SUMMARY_NAME, phase=phase), method
