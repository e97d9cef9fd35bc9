"""Context assembly: the message list to send to the model, within one token budget.

Seed 001 §1-§4 and seed 003, in this order:

1. **Sort the input.** Earlier ``memory_context`` blocks (by name) are removed (seed 003
   §5: a new one replaces them); earlier ``context_summary`` messages are recognised and
   folded into the next summary; system messages are kept verbatim; the rest is history.
2. **Budget** (:class:`ContextBudgetManager`, seed 001 §2): history 30%, memories 50%,
   system 15%, reserve 5%. System messages are never cut: when they need more than their
   share the reserve, then memories, then history give way; the system
   messages and the last user message must fit the budget together, else InvalidInput.
3. **Private memories first** (seed 001 §1): the recalled memories fill the memory section
   as one ``memory_context`` block titled ``## Relevant Memories``, compressed by level
   (:mod:`.levels`) when they do not all fit. Unused system and memory budget then flows to
   the history (re-allocation within the total; the reserve stays unused).
4. **History.** If it fits under ``CONTEXT_SUMMARY_THRESHOLD`` (80%) of its budget it is
   kept as it is. Otherwise (seed 003 §1) the ``preserve_recent`` newest messages and the
   last user message are kept verbatim, older messages are fitted by level into
   ``RETAINED_RATIO`` of the budget (important ones intact, the rest shortened, the least
   important dropped), and the dropped ones become the rolling summary, whose budget is at
   most ``CONTEXT_SUMMARY_MAX_TOKENS`` and 30% of the history budget (seed 001 §4.2).
5. **Order.** System messages, the summary, the kept history in its order; the memory block
   just before the last user message, so the prompt still ends with the user (seed 003 §5).

The result never exceeds the budget by the estimator's count: every section is filled only
within its allocation, and the allocations never add up to more than the total.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from services.context.budget import ContextBudgetManager, Section, SectionUsage
from services.context.cards import Card, cards_from_candidates
from services.context.levels import Item, Level, LevelCompressor
from services.context.llm_client import ChatCompletionsClient, LlmUnavailable
from services.context.messages import ChatMessage
from services.context.summary import (
    Summary,
    candidates,
    fit_summary,
    is_summary_message,
    parse_summary,
)
from services.context.summary_llm import llm_summary
from services.context.tokens import TokenEstimator
from services.core.errors import InvalidInput

log = logging.getLogger(__name__)

MEMORY_BLOCK_NAME: Final = "memory_context"
MEMORY_BLOCK_TITLE: Final = "## Relevant Memories"
# After a summary the history is brought down to this share of its budget, so the next
# turns do not summarise again at once (seed 003 §6 retained_ratio 0.6).
RETAINED_RATIO: Final = 0.6
# The summary's share of the history budget (seed 001 §4.2: 0.3 × the history allocation).
SUMMARY_SHARE: Final = 0.3


@dataclass(frozen=True)
class MemoryCandidate:
    """A recalled memory offered to the memory block."""

    id: int
    content: str
    memory_type: str
    score: float  # recall score: decides the drop order
    importance: float  # 0-1: at the preserve threshold it is kept intact
    created_at: datetime | None = None


@dataclass(frozen=True)
class InjectedMemory:
    """A memory as it went into the block."""

    id: int
    text: str
    memory_type: str
    score: float
    importance: float
    tokens: int
    level: Level


@dataclass(frozen=True)
class Dropped:
    """Something left out: a message index or a memory id, and its score."""

    key: int
    score: float


@dataclass(frozen=True)
class SummaryOutcome:
    """The rolling summary written this time."""

    message: ChatMessage
    method: str  # "llm" or "extractive"
    summarized: list[int]  # message indexes folded in
    previous_folded: bool
    cards: list[Card]


@dataclass
class AssembledContext:
    """Everything the route returns."""

    messages: list[ChatMessage]
    memories: list[InjectedMemory]
    dropped_messages: list[Dropped]
    dropped_memories: list[Dropped]
    removed_blocks: list[int]
    compressed: dict[int, Level]
    summary: SummaryOutcome | None
    usage: dict[Section, SectionUsage]
    levels: dict[str, Level]
    budget_tokens: int
    total_tokens: int
    original_history_tokens: int
    history_tokens: int
    query: str = ""
    cards_saved: list[tuple[int, bool]] = field(default_factory=list)

    @property
    def compression_rate(self) -> float:
        """Seed 001 §3.2's 压缩率: the share of the history's tokens that was removed."""
        if self.original_history_tokens <= 0:
            return 0.0
        return round(max(0.0, 1.0 - self.history_tokens / self.original_history_tokens), 4)


@dataclass(frozen=True)
class AssemblyOptions:
    """The knobs of one assembly (settings, overridden per request)."""

    shares: dict[Section, float]
    preserve_recent: int
    preserve_importance: float
    summary_threshold: float
    summary_max_tokens: int


def memory_line(memory: MemoryCandidate, text: str | None = None) -> str:
    """One bullet of the memory block: type, date and content."""
    date = f" ({memory.created_at.date().isoformat()})" if memory.created_at else ""
    return f"- [{memory.memory_type}]{date} {memory.content if text is None else text}"


def memory_block(lines: Sequence[str]) -> ChatMessage:
    """The ``memory_context`` message (seed 003 §5)."""
    return ChatMessage(
        "assistant", MEMORY_BLOCK_TITLE + "\n" + "\n".join(lines), name=MEMORY_BLOCK_NAME
    )


def _last_user(messages: Sequence[ChatMessage], indexes: Sequence[int]) -> int | None:
    for index in reversed(indexes):
        if messages[index].role == "user":
            return index
    return None


class ContextAssembler:
    """Pure assembly over scored messages and recalled memories (the LLM is optional)."""

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

    async def assemble(
        self,
        messages: Sequence[ChatMessage],
        scores: Sequence[float],
        memories: Sequence[MemoryCandidate],
        budget_tokens: int,
        options: AssemblyOptions,
    ) -> AssembledContext:
        """See the module docstring. ``scores[i]`` (0-10) scores ``messages[i]``."""
        est = self.estimator
        costs = [est.message(m) for m in messages]
        removed = [i for i, m in enumerate(messages) if m.name == MEMORY_BLOCK_NAME]
        summaries = [
            i for i, m in enumerate(messages) if i not in removed and is_summary_message(m)
        ]
        system = [
            i
            for i, m in enumerate(messages)
            if m.is_system and i not in removed and i not in summaries
        ]
        taken = set(removed) | set(summaries) | set(system)
        history = [i for i in range(len(messages)) if i not in taken]
        last_user = _last_user(messages, history)

        system_tokens = sum(costs[i] for i in system)
        must = system_tokens + (costs[last_user] if last_user is not None else 0)
        if must > budget_tokens:
            what = (
                "system messages and last user message"
                if last_user is not None
                else ("system messages")
            )
            raise InvalidInput(
                f"budget_tokens {budget_tokens} is below the {must} tokens of the {what}, "
                "which are always kept"
            )
        budget = ContextBudgetManager(budget_tokens, options.shares)
        _ensure(budget, "system", system_tokens, ("reserve", "memories", "history"))
        budget.add("system", system_tokens)
        budget.move("system", "history")
        if last_user is not None:
            _ensure(budget, "history", costs[last_user], ("reserve", "memories"))

        injected, dropped_memories, memory_level, block = self._memories(
            memories, budget.free("memories"), options
        )
        if block is not None:
            budget.add("memories", est.message(block))
        budget.move("memories", "history")

        plan = await self._history(
            messages, scores, costs, history, summaries, last_user, budget.free("history"), options
        )
        budget.add("history", plan.tokens)

        ordered = self._order(messages, system, plan, block)
        original_history = sum(costs[i] for i in history) + sum(costs[i] for i in summaries)
        return AssembledContext(
            messages=ordered,
            memories=injected,
            dropped_messages=[Dropped(i, scores[i]) for i in plan.dropped],
            dropped_memories=dropped_memories,
            removed_blocks=removed,
            compressed={i: lv for i, lv in plan.compressed.items() if lv != "none"},
            summary=plan.summary,
            usage=budget.usage(),
            levels={"history": plan.level, "memories": memory_level},
            budget_tokens=budget_tokens,
            total_tokens=est.messages(ordered),
            original_history_tokens=original_history,
            history_tokens=plan.tokens,
        )

    def _memories(
        self, memories: Sequence[MemoryCandidate], free: int, options: AssemblyOptions
    ) -> tuple[list[InjectedMemory], list[Dropped], Level, ChatMessage | None]:
        if not memories:
            return [], [], "none", None
        by_id = {m.id: m for m in memories}
        header = self.estimator.message(memory_block([]))
        target = free - header
        if target <= 0:
            return [], [Dropped(m.id, m.score) for m in memories], "none", None
        # The line's prefix (type, date) is metadata and is never compressed.
        prefix = {m.id: self.estimator.count(memory_line(m, "")) for m in memories}
        items = [Item(m.id, m.content, m.importance, priority=m.score) for m in memories]
        fitted = self.compressor.fit(
            items, target - sum(prefix.values()), options.preserve_importance
        )
        kept = list(fitted.kept)
        while True:
            lines = [memory_line(by_id[f.key], f.text) for f in kept]
            block = memory_block(lines)
            if kept and self.estimator.message(block) <= free:
                break
            if not kept:
                return [], [Dropped(m.id, m.score) for m in memories], fitted.level, None
            # Prefixes were reserved for every memory; if that still overshoots (another
            # estimator's merging), the least important goes.
            weakest = min(range(len(kept)), key=lambda i: (by_id[kept[i].key].score, -i))
            kept.pop(weakest)
        kept_ids = {f.key for f in kept}
        injected = [
            InjectedMemory(
                id=f.key,
                text=f.text,
                memory_type=by_id[f.key].memory_type,
                score=by_id[f.key].score,
                importance=by_id[f.key].importance,
                tokens=self.estimator.count(line),
                level=f.level,
            )
            for f, line in zip(kept, lines, strict=True)
        ]
        dropped = [Dropped(m.id, m.score) for m in memories if m.id not in kept_ids]
        return injected, dropped, fitted.level, block

    async def _history(
        self,
        messages: Sequence[ChatMessage],
        scores: Sequence[float],
        costs: Sequence[int],
        history: Sequence[int],
        summaries: Sequence[int],
        last_user: int | None,
        free: int,
        options: AssemblyOptions,
    ) -> _HistoryPlan:
        total = sum(costs[i] for i in history) + sum(costs[i] for i in summaries)
        if total <= options.summary_threshold * free:
            return _HistoryPlan(kept={i: messages[i] for i in [*summaries, *history]}, tokens=total)
        plan = _HistoryPlan()
        # Newest first: the last user message, then the preserve_recent newest.
        window = history[max(0, len(history) - options.preserve_recent) :]
        recent = list(reversed(window)) if options.preserve_recent > 0 else []
        if last_user is not None and last_user not in recent:
            recent.insert(0, last_user)
        elif last_user is not None:
            recent.remove(last_user)
            recent.insert(0, last_user)
        used = 0
        for index in recent:
            if used + costs[index] <= free:
                plan.kept[index] = messages[index]
                used += costs[index]
        older = [i for i in history if i not in plan.kept and i not in recent]
        plan.dropped.extend(i for i in recent if i not in plan.kept)
        room = free - used
        summary_budget = min(options.summary_max_tokens, int(SUMMARY_SHARE * free), room)
        older_target = max(0, min(int(RETAINED_RATIO * free) - used, room) - summary_budget)
        items = [Item(i, messages[i].content, scores[i] / 10.0, priority=scores[i]) for i in older]
        # The role markup is never compressed: reserve it up front.
        overhead = {i: costs[i] - self.estimator.count(messages[i].content) for i in older}
        fitted = self.compressor.fit(
            items, older_target - sum(overhead.values()), options.preserve_importance
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
        to_fold = sorted(plan.dropped)
        previous = _merge_previous(messages, summaries)
        if to_fold or previous is not None:
            plan.summary = await self._summarize(
                messages, scores, to_fold, previous, summary_budget + max(0, spare), bool(summaries)
            )
        plan.dropped = sorted(set(plan.dropped) | set(summaries))
        plan.tokens = sum(self.estimator.message(m) for m in plan.kept.values())
        if plan.summary is not None:
            plan.tokens += self.estimator.message(plan.summary.message)
        return plan

    async def _summarize(
        self,
        messages: Sequence[ChatMessage],
        scores: Sequence[float],
        indexes: Sequence[int],
        previous: Summary | None,
        budget: int,
        had_previous: bool,
    ) -> SummaryOutcome | None:
        cards: list[Card] = []
        method = "extractive"
        chosen = None
        if self.llm is not None:
            try:
                found, cards = await llm_summary(
                    self.llm, [(i, messages[i]) for i in indexes], previous
                )
                chosen = fit_summary(found, budget, self.estimator)
                method = "llm"
            except LlmUnavailable as exc:
                log.warning("LLM summary unavailable (%s); writing an extractive summary", exc)
                cards = []
        if chosen is None:
            method = "extractive"
            found = candidates([(i, messages[i], scores[i]) for i in indexes], previous)
            chosen = fit_summary(found, budget, self.estimator)
            if chosen is None:
                return None
            cards = cards_from_candidates(chosen[1], self.keywords)
        summary, _kept = chosen
        return SummaryOutcome(summary.message(), method, list(indexes), had_previous, cards)

    @staticmethod
    def _order(
        messages: Sequence[ChatMessage],
        system: Sequence[int],
        plan: _HistoryPlan,
        block: ChatMessage | None,
    ) -> list[ChatMessage]:
        out: list[ChatMessage] = []
        summary_placed = plan.summary is None
        system_set = set(system)
        for index in range(len(messages)):
            if index in system_set:
                out.append(messages[index])
            elif index in plan.kept:
                if not summary_placed:
                    assert plan.summary is not None
                    out.append(plan.summary.message)
                    summary_placed = True
                out.append(plan.kept[index])
        if not summary_placed:
            assert plan.summary is not None
            out.append(plan.summary.message)
        if block is not None:
            users = [i for i, m in enumerate(out) if m.role == "user"]
            out.insert(users[-1] if users else len(out), block)
        return out


@dataclass
class _HistoryPlan:
    kept: dict[int, ChatMessage] = field(default_factory=dict)
    dropped: list[int] = field(default_factory=list)
    compressed: dict[int, Level] = field(default_factory=dict)
    summary: SummaryOutcome | None = None
    level: Level = "none"
    tokens: int = 0


def _merge_previous(messages: Sequence[ChatMessage], summaries: Sequence[int]) -> Summary | None:
    """Every earlier summary's sections, folded into one (normally there is one)."""
    if not summaries:
        return None
    merged = Summary()
    for index in summaries:
        for heading, bullet in parse_summary(messages[index].content).bullets:
            merged.sections[heading].append(bullet)
    return merged


def _ensure(
    budget: ContextBudgetManager, section: Section, need: int, donors: Sequence[Section]
) -> None:
    """Grow ``section``'s allocation to ``need`` from the donors' free tokens, in order."""
    for donor in donors:
        missing = need - budget.allocation(section)
        if missing <= 0:
            return
        budget.move(donor, section, min(missing, budget.free(donor)))
