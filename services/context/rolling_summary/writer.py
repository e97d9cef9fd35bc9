"""Write a summary of messages within a budget: the LLM's when one is configured and it
answers usably, else extractive (seed 003 §2; seed 001 §3.1 提取式摘要).

Shared by the rolling summary (:mod:`services.context.assembly.history`) and the phase summary
(:mod:`services.context.importance.phases`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from services.context.rolling_summary.cards import Card
from services.context.rolling_summary.extractive import Candidate, Summary, candidates, fit_summary
from services.context.rolling_summary.llm_summary import llm_summary
from services.context.shared.llm_client import ChatCompletionsClient, LlmUnavailable
from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import TokenEstimator

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Written:
    """A summary, the candidates it kept, who wrote it and the LLM's cards (if it did)."""

    summary: Summary
    kept: list[Candidate]
    method: str  # "llm" or "extractive"
    llm_cards: list[Card]


async def write_summary(
    llm: ChatCompletionsClient | None,
    items: Sequence[tuple[int, ChatMessage, float]],
    previous: Summary | None,
    budget: int,
    estimator: TokenEstimator,
) -> Written | None:
    """A summary of ``items`` (index, message, importance 0-10), ``previous`` folded in,
    within ``budget`` tokens; None when not even one bullet fits."""
    if llm is not None:
        try:
            found, cards = await llm_summary(llm, [(i, m) for i, m, _ in items], previous)
        except LlmUnavailable as exc:
            log.warning("LLM summary unavailable (%s); writing an extractive summary", exc)
        else:
            chosen = fit_summary(found, budget, estimator)
            if chosen is not None:
                return Written(chosen[0], chosen[1], "llm", cards)
    # The extractive summary is CPU only (cue words, jieba): in a worker thread.
    chosen = await asyncio.to_thread(
        lambda: fit_summary(candidates(items, previous), budget, estimator)
    )
    return None if chosen is None else Written(chosen[0], chosen[1], "extractive", [])
