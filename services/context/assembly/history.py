"""The history's part of context assembly: the sliding window, the rolling summary and the
reconstruction around it (seed 001 §4, seed 003 §1-§2).

1. *Window* (:mod:`.window`). A message that starts a new topic (the user's 「换个话题」,
   or one the frontend marked) closes the old window: every history message before it is
   folded into the rolling summary, whatever the budget.
2. *Within budget.* If the current window fits under ``summary_threshold`` (80%) of the
   history budget and the whole context leaves the headroom the next turn needs, it is
   kept as it is.
3. *Otherwise* (``budget`` or ``headroom``) the ``preserve_recent`` newest messages of the
   window and the last user message are kept verbatim, older ones are fitted by level
   into ``RETAINED_RATIO`` of the budget (important ones intact, the rest shortened, the
   least important dropped), and the dropped ones are folded into the summary.
4. *Reconstruction* (seed 001 §4.2). Whenever a summary is written, the person's key
   facts (:mod:`.profile`) go with it, in one ``user_profile`` message; summary and
   profile together stay within ``SUMMARY_SHARE`` (0.3) of the history budget, and
   ``CONTEXT_SUMMARY_MAX_TOKENS``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final

from services.context.assembly.profile import ProfileFact, ProfileLoader, profile_block
from services.context.assembly.window import Trigger, WindowStart
from services.context.rolling_summary.cards import (
    Card,
    cards_from_candidates,
    llm_cards_worth_keeping,
)
from services.context.rolling_summary.extractive import Summary, parse_summary
from services.context.rolling_summary.writer import write_summary
from services.context.shared.levels import Item, Level, LevelCompressor
from services.context.shared.llm_client import ChatCompletionsClient
from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import TokenEstimator

# After a summary the history is brought down to this share of its budget, so the next
# turns do not summarise again at once (seed 003 §6 retained_ratio 0.6).
RETAINED_RATIO: Final = 0.6
# The summary's share of the history budget (seed 001 §4.2: 0.3 × the history allocation).
SUMMARY_SHARE: Final = 0.3
# The key user information takes at most this share of the summary's budget.
PROFILE_SHARE: Final = 0.5


@dataclass(frozen=True)
class SummaryOutcome:
    """The rolling summary written this time."""

    message: ChatMessage
    method: str  # "llm" or "extractive"
    summarized: list[int]  # message indexes folded in
    previous_folded: bool
    cards: list[Card]


@dataclass(frozen=True)
class HistoryInput:
    """The history of one assembly: which messages, what they cost and score."""

    messages: Sequence[ChatMessage]
    scores: Sequence[float]
    costs: Sequence[int]
    history: Sequence[int]  # indexes of the plain history messages
    summaries: Sequence[int]  # indexes of earlier summaries, folded into the next
    last_user: int | None


@dataclass(frozen=True)
class HistoryLimits:
    """What the history may use and when it must be summarised."""

    free: int  # tokens the history section may use
    preserve_recent: int
    preserve_importance: float
    summary_threshold: float
    summary_max_tokens: int
    short_of_headroom: bool  # kept as it is, the context would leave too little


@dataclass
class HistoryPlan:
    """What goes out of the history, and why."""

    kept: dict[int, ChatMessage] = field(default_factory=dict)
    dropped: list[int] = field(default_factory=list)
    compressed: dict[int, Level] = field(default_factory=dict)
    summary: SummaryOutcome | None = None
    profile: ChatMessage | None = None
    profile_ids: list[int] = field(default_factory=list)
    trigger: Trigger | None = None
    window_start: int | None = None
    level: Level = "none"
    tokens: int = 0


class HistoryPlanner:
    """Plans the history within its budget; see the module docstring."""

    def __init__(
        self,
        estimator: TokenEstimator,
        compressor: LevelCompressor,
        keywords: Callable[[str], list[str]],
        llm: ChatCompletionsClient | None = None,
    ) -> None:
        self.estimator = estimator
        self.compressor = compressor
        self.keywords = keywords
        self.llm = llm

    async def plan(
        self,
        given: HistoryInput,
        limits: HistoryLimits,
        start: WindowStart | None,
        profile: ProfileLoader | None = None,
    ) -> HistoryPlan:
        """See the module docstring. ``profile`` is awaited only when a summary is written."""
        messages, costs = given.messages, given.costs
        old = [i for i in given.history if start is not None and i < start.index]
        window = list(given.history[len(old) :])  # the history is in message order
        total = sum(costs[i] for i in window) + sum(costs[i] for i in given.summaries)
        over = total > limits.summary_threshold * limits.free
        if not old and not over and not limits.short_of_headroom:
            kept = {i: messages[i] for i in [*given.summaries, *window]}
            return HistoryPlan(kept=kept, tokens=total)
        plan = HistoryPlan(window_start=start.index if old and start else None)
        if over or limits.short_of_headroom:
            # CPU only (compression levels, jieba): in a worker thread.
            spare = await asyncio.to_thread(self._fit_window, given, limits, window, plan)
        else:
            plan.kept = {i: messages[i] for i in window}
            spare = 0
        used = sum(self.estimator.message(m) for m in plan.kept.values())
        room = limits.free - used
        to_fold = sorted([*old, *plan.dropped])
        previous = _merge_previous(messages, given.summaries)
        if to_fold or previous is not None:
            budget = min(limits.summary_max_tokens, int(SUMMARY_SHARE * limits.free), room)
            budget = max(0, min(budget + max(0, spare), room))
            facts = await profile() if profile is not None else ()
            budget -= self._profile(plan, facts, int(PROFILE_SHARE * budget))
            plan.summary = await self._summarize(
                given, to_fold, previous, budget, bool(given.summaries)
            )
        if to_fold:
            plan.trigger = start.trigger if old and start else ("budget" if over else "headroom")
        plan.dropped = sorted(set(plan.dropped) | set(old) | set(given.summaries))
        plan.tokens = used
        for extra in (plan.summary.message if plan.summary else None, plan.profile):
            if extra is not None:
                plan.tokens += self.estimator.message(extra)
        return plan

    def _fit_window(
        self, given: HistoryInput, limits: HistoryLimits, window: list[int], plan: HistoryPlan
    ) -> int:
        """Keep the newest of the window and fit the rest by level; returns the tokens the
        fitting reserved but did not use (the summary may have them)."""
        messages, costs, free = given.messages, given.costs, limits.free
        # Newest first: the last user message, then the preserve_recent newest.
        recent = list(reversed(window[max(0, len(window) - limits.preserve_recent) :]))
        if limits.preserve_recent <= 0:
            recent = []
        last_user = given.last_user
        if last_user is not None:
            if last_user in recent:
                recent.remove(last_user)
            recent.insert(0, last_user)
        used = 0
        for index in recent:
            if used + costs[index] <= free:
                plan.kept[index] = messages[index]
                used += costs[index]
        older = [i for i in window if i not in plan.kept and i not in recent]
        plan.dropped.extend(i for i in recent if i not in plan.kept)
        room = free - used
        summary_budget = min(limits.summary_max_tokens, int(SUMMARY_SHARE * free), room)
        older_target = max(0, min(int(RETAINED_RATIO * free) - used, room) - summary_budget)
        scores = given.scores
        items = [Item(i, messages[i].content, scores[i] / 10.0, priority=scores[i]) for i in older]
        # The role markup is never compressed: reserve it up front.
        overhead = {i: costs[i] - self.estimator.count(messages[i].content) for i in older}
        fitted = self.compressor.fit(
            items, older_target - sum(overhead.values()), limits.preserve_importance
        )
        plan.level = fitted.level
        kept_older = {f.key: f for f in fitted.kept}
        # Reserving every message's markup may over-reserve for dropped ones; give it back.
        spare = older_target - sum(f.tokens + overhead[k] for k, f in kept_older.items())
        for index in older:
            if index in kept_older:
                fitted_item = kept_older[index]
                original = messages[index]
                plan.kept[index] = ChatMessage(
                    original.role,
                    fitted_item.text,
                    name=original.name,
                    id=original.id,
                    timestamp=original.timestamp,
                )
                plan.compressed[index] = fitted_item.level
            else:
                plan.dropped.append(index)
        return spare

    def _profile(self, plan: HistoryPlan, facts: Sequence[ProfileFact], budget: int) -> int:
        """Put the key user information in the plan within ``budget``; its tokens."""
        if not facts or budget <= 0:
            return 0
        found = profile_block(facts, budget, self.estimator)
        if found is None:
            return 0
        plan.profile, plan.profile_ids = found
        return self.estimator.message(plan.profile)

    async def _summarize(
        self,
        given: HistoryInput,
        indexes: Sequence[int],
        previous: Summary | None,
        budget: int,
        had_previous: bool,
    ) -> SummaryOutcome | None:
        items = [(i, given.messages[i], given.scores[i]) for i in indexes]
        written = await write_summary(self.llm, items, previous, budget, self.estimator)
        if written is None:
            return None
        cards = llm_cards_worth_keeping(written.llm_cards)
        if written.method == "extractive":
            cards = await asyncio.to_thread(cards_from_candidates, written.kept, self.keywords)
        return SummaryOutcome(
            written.summary.message(), written.method, list(indexes), had_previous, cards
        )


def _merge_previous(messages: Sequence[ChatMessage], summaries: Sequence[int]) -> Summary | None:
    """Every earlier summary's sections, folded into one (normally there is one)."""
    if not summaries:
        return None
    merged = Summary()
    for index in summaries:
        for heading, bullet in parse_summary(messages[index].content).bullets:
            merged.sections[heading].append(bullet)
    return merged
