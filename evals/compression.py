"""Information retention of smart_compress on LoCoMo, beside a truncation baseline.

Each conversation becomes one chat: a turn is a ``user`` message when its speaker opened
the conversation, else ``assistant``, named by its speaker, with the turn's text (and
photo caption). For every question with evidence the whole conversation is scored with
the question as task context and compressed to 50%, 25% and 10% of its tokens (the
service's own estimate), ``preserve_recent`` 3. Retention is the fraction of the
question's evidence turns that were kept, averaged over questions. The baseline keeps
only the most recent messages that fit the same budget.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from evals.locomo import Conversation
from services.context.importance.compress import smart_compress
from services.context.importance.message_scorer import MessageImportanceScorer
from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import TokenEstimator
from services.core.progress import NO_PROGRESS, Progress

FRACTIONS: tuple[float, ...] = (0.5, 0.25, 0.1)
PRESERVE_RECENT = 3


def chat_messages(conversation: Conversation) -> list[ChatMessage]:
    """The conversation as chat messages (see the module docstring)."""
    opener = conversation.turns[0].speaker if conversation.turns else ""
    return [
        ChatMessage(
            "user" if turn.speaker == opener else "assistant",
            turn.text,
            name=turn.speaker,
            id=turn.dia_id,
        )
        for turn in conversation.turns
    ]


def truncate(costs: Sequence[int], budget: int) -> set[int]:
    """The baseline: the most recent messages whose tokens fit ``budget``."""
    kept: set[int] = set()
    used = 0
    for index in range(len(costs) - 1, -1, -1):
        if used + costs[index] > budget:
            break
        used += costs[index]
        kept.add(index)
    return kept


@dataclass(frozen=True)
class QuestionRetention:
    """Evidence kept by both systems at each budget, for one question."""

    sample_id: str
    category: int
    evidence: int
    service: dict[float, float]
    baseline: dict[float, float]


@dataclass
class CompressionRun:
    """Every question's retention, the budgets' token counts and per-question latency."""

    fractions: tuple[float, ...]
    questions: list[QuestionRetention] = field(default_factory=list)
    latencies_ms: list[float] = field(default_factory=list)
    kept_tokens: dict[float, list[int]] = field(default_factory=dict)
    budgets: dict[float, list[int]] = field(default_factory=dict)


async def run_compression(
    conversations: Sequence[Conversation],
    scorer: MessageImportanceScorer,
    estimator: TokenEstimator,
    fractions: Sequence[float] = FRACTIONS,
    progress: Progress = NO_PROGRESS,
) -> CompressionRun:
    """Compress every conversation once per question and budget; see the module docstring."""
    run = CompressionRun(tuple(fractions))
    progress.start(sum(len(c.questions) for c in conversations))
    for fraction in fractions:
        run.kept_tokens[fraction] = []
        run.budgets[fraction] = []
    for conversation in conversations:
        messages = chat_messages(conversation)
        ids = [m.id for m in messages]
        costs = [estimator.message(m) for m in messages]
        total = sum(costs)
        for question in conversation.questions:
            evidence = set(question.evidence)
            started = time.perf_counter()
            scores = await scorer.score(messages, scorer.task(question.text))
            service: dict[float, float] = {}
            baseline: dict[float, float] = {}
            for fraction in fractions:
                budget = int(total * fraction)
                result = smart_compress(
                    messages,
                    scores,
                    budget_tokens=budget,
                    preserve_recent=PRESERVE_RECENT,
                    estimator=estimator,
                )
                kept = {ids[i] for i in result.kept}
                service[fraction] = len(evidence & kept) / len(evidence)
                truncated = {ids[i] for i in truncate(costs, budget)}
                baseline[fraction] = len(evidence & truncated) / len(evidence)
                run.kept_tokens[fraction].append(result.kept_tokens)
                run.budgets[fraction].append(budget)
            run.latencies_ms.append((time.perf_counter() - started) * 1000.0)
            run.questions.append(
                QuestionRetention(
                    conversation.sample_id,
                    question.category,
                    len(evidence),
                    service,
                    baseline,
                )
            )
            progress.advance()
    return run
