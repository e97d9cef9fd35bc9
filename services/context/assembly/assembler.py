"""Context assembly: the message list to send to the model, within one token budget.

Seed 001 §1-§4 and seed 003, in this order:

1. **Sort the input.** Earlier ``memory_context`` and ``user_profile`` blocks (by name)
   are removed (seed 003 §5: a new one replaces them); earlier ``context_summary``
   messages are recognised and folded into the next summary; system messages are kept
   verbatim; the rest is history.
2. **Budget** (:class:`ContextBudgetManager`, seed 001 §2): history 30%, memories 50%,
   system 15%, reserve 5%. System messages are never cut: when they need more than their
   share the reserve, then memories, then history give way; the system
   messages and the last user message must fit the budget together, else InvalidInput.
3. **Private memories first** (seed 001 §1): the recalled memories fill the memory section,
   at most ``memory_max_tokens`` (seed 003: 800), as one ``memory_context`` block titled
   ``## Relevant Memories``, compressed by level (:mod:`services.context.shared.levels`)
   when they do not all fit. Unused system and memory budget then flows to the history
   (re-allocation within the total; the reserve stays unused).
4. **History** (:mod:`.history`): the sliding window, the rolling summary when the window
   passes ``CONTEXT_SUMMARY_THRESHOLD`` of its budget or the context would leave too
   little headroom (:mod:`.window`), and the key user information that goes with a
   summary (seed 001 §4.2).
5. **Order.** System messages, the summary, the key user information, the kept history in
   its order; the memory block just before the last user message, so the prompt still
   ends with the user (seed 003 §5).

The result never exceeds the budget by the estimator's count: every section is filled only
within its allocation, and the allocations never add up to more than the total.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from services.context.assembly.budget import ContextBudgetManager, Section, SectionUsage
from services.context.assembly.history import (
    HistoryInput,
    HistoryLimits,
    HistoryPlan,
    HistoryPlanner,
    SummaryOutcome,
)
from services.context.assembly.knowledge_cache import CacheState
from services.context.assembly.profile import ProfileFact, ProfileLoader, is_profile_message
from services.context.assembly.recalled_summary import MemorySummary
from services.context.assembly.window import Trigger, headroom_needed, window_start
from services.context.rolling_summary.extractive import is_summary_message
from services.context.shared.levels import Item, Level, LevelCompressor
from services.context.shared.llm_client import ChatCompletionsClient
from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import TokenEstimator
from services.core.errors import InvalidInput

__all__ = ["SummaryOutcome"]

MEMORY_BLOCK_NAME: Final = "memory_context"
MEMORY_BLOCK_TITLE: Final = "## Relevant Memories"


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
    summarized: bool = False  # in the block's summary, not a line of its own


@dataclass(frozen=True)
class Dropped:
    """Something left out: a message index or a memory id, and its score."""

    key: int
    score: float


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
    # Why the history was summarised (None: it was not) and where the window starts.
    trigger: Trigger | None = None
    window_start: int | None = None
    profile_ids: list[int] = field(default_factory=list)  # memories in the user_profile block
    memory_summary: MemorySummary | None = None  # the block is this summary (seed 004)
    # Set by the service (services/context/assembly/knowledge.py): more memories, and whether the
    # knowledge cache answered ("hit", "miss", "off"; "" when nothing was recalled).
    next_cursor: str | None = None
    cache: CacheState = ""
    # Seed 001 §1.2 for the recalled memories (None: none were recalled).
    sufficient: bool | None = None
    coverage: float | None = None

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
    memory_max_tokens: int | None = None  # the memory block's cap (None: its share only)
    headroom_share: float = 0.0  # seed 003: summarise when less than this share is left
    headroom_tokens: int = 0  # … or fewer tokens than this


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
        self.history = HistoryPlanner(estimator, compressor, keywords, llm)

    async def assemble(
        self,
        messages: Sequence[ChatMessage],
        scores: Sequence[float],
        memories: Sequence[MemoryCandidate],
        budget_tokens: int,
        options: AssemblyOptions,
        profile: ProfileLoader | None = None,
        memory_summary: MemorySummary | None = None,
    ) -> AssembledContext:
        """See the module docstring. ``scores[i]`` (0-10) scores ``messages[i]``;
        ``profile`` gives the key user information, read only when a summary is written;
        ``memory_summary`` replaces the memories' lines when it fits (seed 004)."""
        est = self.estimator
        # The CPU-heavy steps (token counts, compression levels, the extractive summary)
        # run in a worker thread: on the loop, 200 messages of 1,000 characters held it
        # for 760 ms of CPU, mostly jieba's keywords.
        costs = await asyncio.to_thread(lambda: [est.message(m) for m in messages])
        removed = [
            i
            for i, m in enumerate(messages)
            if m.name == MEMORY_BLOCK_NAME or is_profile_message(m)
        ]
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

        memory_room = budget.free("memories")
        if options.memory_max_tokens is not None:
            memory_room = min(memory_room, options.memory_max_tokens)
        summarized = self._summary_block(memories, memory_summary, memory_room)
        block: ChatMessage | None
        if summarized is not None:
            injected, block = summarized
            dropped_memories: list[Dropped] = []
            memory_level: Level = "none"
        else:
            memory_summary = None
            injected, dropped_memories, memory_level, block = await asyncio.to_thread(
                self._memories, memories, memory_room, options
            )
        if block is not None:
            budget.add("memories", est.message(block))
        budget.move("memories", "history")

        history_tokens = sum(costs[i] for i in history) + sum(costs[i] for i in summaries)
        left = budget_tokens - system_tokens - budget.used("memories") - history_tokens
        limits = HistoryLimits(
            free=budget.free("history"),
            preserve_recent=options.preserve_recent,
            preserve_importance=options.preserve_importance,
            summary_threshold=options.summary_threshold,
            summary_max_tokens=options.summary_max_tokens,
            short_of_headroom=left
            < headroom_needed(budget_tokens, options.headroom_share, options.headroom_tokens),
        )
        injected_ids = {m.id for m in injected}

        async def facts() -> Sequence[ProfileFact]:
            # A fact already in the memory block is not said twice.
            found = await profile() if profile is not None else ()
            return [f for f in found if f.memory_id not in injected_ids]

        plan = await self.history.plan(
            HistoryInput(messages, scores, costs, history, summaries, last_user),
            limits,
            window_start(messages, history),
            facts,
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
            trigger=plan.trigger,
            window_start=plan.window_start,
            profile_ids=plan.profile_ids,
            memory_summary=memory_summary,
        )

    def _summary_block(
        self, memories: Sequence[MemoryCandidate], summary: MemorySummary | None, free: int
    ) -> tuple[list[InjectedMemory], ChatMessage] | None:
        """The memory block as the memories' summary, if there is one and it fits."""
        if summary is None or not summary.text:
            return None
        block = memory_block([summary.text])
        if self.estimator.message(block) > free:
            return None
        used = set(summary.memory_ids)
        return [
            InjectedMemory(m.id, m.content, m.memory_type, m.score, m.importance, 0, "none", True)
            for m in memories
            if m.id in used
        ], block

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
        # The line's prefix (type, date) is metadata and is never compressed. It is
        # reserved for every memory offered; when that leaves room for none, the best
        # ones are offered alone (a small memory_max_tokens still gets the best memory).
        prefix = {m.id: self.estimator.count(memory_line(m, "")) for m in memories}
        best_first = sorted(memories, key=lambda m: (-m.score, m.id))
        for offered in range(len(memories), 0, -1):
            chosen = {m.id for m in best_first[:offered]}
            items = [
                Item(m.id, m.content, m.importance, priority=m.score)
                for m in memories
                if m.id in chosen
            ]
            reserved = sum(prefix[i] for i in chosen)
            fitted = self.compressor.fit(items, target - reserved, options.preserve_importance)
            if fitted.kept:
                break
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

    @staticmethod
    def _order(
        messages: Sequence[ChatMessage],
        system: Sequence[int],
        plan: HistoryPlan,
        block: ChatMessage | None,
    ) -> list[ChatMessage]:
        out: list[ChatMessage] = []
        # The summary, then the key user information, where the history begins.
        front = [m for m in (plan.summary.message if plan.summary else None, plan.profile) if m]
        system_set = set(system)
        for index in range(len(messages)):
            if index in system_set:
                out.append(messages[index])
            elif index in plan.kept:
                out.extend(front)
                front = []
                out.append(plan.kept[index])
        out.extend(front)
        if block is not None:
            users = [i for i, m in enumerate(out) if m.role == "user"]
            out.insert(users[-1] if users else len(out), block)
        return out


def _ensure(
    budget: ContextBudgetManager, section: Section, need: int, donors: Sequence[Section]
) -> None:
    """Grow ``section``'s allocation to ``need`` from the donors' free tokens, in order."""
    for donor in donors:
        missing = need - budget.allocation(section)
        if missing <= 0:
            return
        budget.move(donor, section, min(missing, budget.free(donor)))
