"""smart_compress: system kept, recent kept, best scores fill the rest, order preserved."""

from __future__ import annotations

import pytest

from services.context.importance.compress import smart_compress
from services.context.importance.message_score import MessageScore
from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import HEURISTIC
from services.core.errors import InvalidInput


def scored(totals: list[float]) -> list[MessageScore]:
    return [
        MessageScore(
            index=i,
            total=t,
            dimensions={
                "relevance": 0.0,
                "information": 0.0,
                "operation": 0.0,
                "decision": 0.0,
                "recency": 0.0,
            },
            confidence=1.0,
            method="rule",
            content_hash=str(i),
        )
        for i, t in enumerate(totals)
    ]


SYSTEM = ChatMessage("system", "Be brief.")
MESSAGES = [SYSTEM, *(ChatMessage("user", f"message number {i}") for i in range(1, 8))]
TOTALS = [0.0, 9.0, 1.0, 8.0, 2.0, 7.0, 0.5, 0.1]


def test_target_count_keeps_system_recent_and_best_in_order() -> None:
    result = smart_compress(MESSAGES, scored(TOTALS), target_count=5, preserve_recent=2)
    assert result.kept == [0, 1, 3, 6, 7]  # system, best two older (9, 8), two most recent
    assert result.dropped == [2, 4, 5]
    assert result.compression_rate == round(5 / 8, 4)
    assert result.original_count == 8


def test_budget_is_never_exceeded_and_smaller_messages_still_fit() -> None:
    big = ChatMessage("user", "word " * 40)
    messages = [SYSTEM, big, ChatMessage("user", "short one"), ChatMessage("user", "last")]
    costs = [HEURISTIC.message(m) for m in messages]
    budget = costs[0] + costs[2] + costs[3] + 2
    result = smart_compress(messages, scored([0, 9, 1, 0]), budget_tokens=budget, preserve_recent=1)
    assert result.kept == [0, 2, 3]  # the best-scored message does not fit; the next does
    assert result.kept_tokens <= budget


def test_recent_messages_that_cannot_fit_are_dropped_too() -> None:
    messages = [SYSTEM, ChatMessage("user", "word " * 50), ChatMessage("user", "ok then")]
    budget = HEURISTIC.message(SYSTEM) + HEURISTIC.message(messages[2])
    result = smart_compress(messages, scored([0, 5, 5]), budget_tokens=budget, preserve_recent=2)
    assert result.kept == [0, 2]
    assert result.kept_tokens == budget


def test_both_limits_apply_together() -> None:
    result = smart_compress(
        MESSAGES, scored(TOTALS), target_count=6, budget_tokens=10_000, preserve_recent=0
    )
    assert result.kept == [0, 1, 2, 3, 4, 5]  # the five best older ones, back in order


FOUR = [ChatMessage("user", f"turn {i}") for i in range(4)]
FOUR_TOTALS = [9.0, 1.0, 0.5, 0.2]


@pytest.mark.parametrize(
    ("preserve_recent", "kept", "exceeded_by"),
    [
        (0, [0, 1], 0),  # no forced ones: the two best
        (1, [0, 3], 0),
        (2, [2, 3], 0),
        (3, [1, 2, 3], 1),  # the newest three are kept even past target_count 2
        (4, [0, 1, 2, 3], 2),
        (5, [0, 1, 2, 3], 2),  # more than there are: all of them, not a wrapped slice
        (6, [0, 1, 2, 3], 2),
    ],
)
def test_the_newest_are_kept_even_past_the_target(
    preserve_recent: int, kept: list[int], exceeded_by: int
) -> None:
    result = smart_compress(
        FOUR, scored(FOUR_TOTALS), target_count=2, preserve_recent=preserve_recent
    )
    assert result.kept == kept
    assert result.target_exceeded_by == exceeded_by


def test_a_token_budget_still_limits_the_newest() -> None:
    # The token budget is a hard limit: of the forced newest, the newest come first.
    budget = sum(HEURISTIC.message(m) for m in FOUR[2:])
    result = smart_compress(FOUR, scored(FOUR_TOTALS), budget_tokens=budget, preserve_recent=4)
    assert result.kept == [2, 3]
    assert result.kept_tokens <= budget


def test_system_messages_must_fit() -> None:
    with pytest.raises(InvalidInput, match="system"):
        smart_compress(MESSAGES, scored(TOTALS), budget_tokens=3)
    with pytest.raises(InvalidInput, match="system"):
        smart_compress([SYSTEM, SYSTEM], scored([0, 0]), target_count=1)
    with pytest.raises(ValueError, match="one score per message"):
        smart_compress(MESSAGES, scored(TOTALS[:2]), target_count=3)


def test_every_system_message_is_kept_not_only_the_first() -> None:
    # Fixtures above hold one system message; a second one, mid-conversation, is as binding.
    messages = [
        SYSTEM,
        ChatMessage("user", "first question"),
        ChatMessage("system", "Answer in French."),
        ChatMessage("user", "second question"),
        ChatMessage("user", "third question"),
    ]
    # preserve_recent 2: the newest two are kept whatever their score.
    result = smart_compress(messages, scored([0, 9, 0, 1, 1]), target_count=4, preserve_recent=2)
    assert result.kept == [0, 2, 3, 4]  # both system messages, then the two most recent
    assert result.dropped == [1]
    costs = [HEURISTIC.message(m) for m in messages]
    # Both system messages count against a token budget: room for exactly one more message.
    budget = costs[0] + costs[2] + costs[4]
    by_tokens = smart_compress(
        messages, scored([0, 9, 0, 1, 1]), budget_tokens=budget, preserve_recent=1
    )
    assert by_tokens.kept == [0, 2, 4]
    with pytest.raises(InvalidInput, match="2 system messages"):
        smart_compress(messages, scored([0, 9, 0, 1, 1]), target_count=1)


def test_limits_exactly_at_the_system_messages_keep_only_them() -> None:
    two = [SYSTEM, ChatMessage("user", "hello"), ChatMessage("system", "Be kind.")]
    # preserve_recent 0: nothing is kept past the limit for being new.
    assert smart_compress(two, scored([0, 5, 0]), target_count=2, preserve_recent=0).kept == [0, 2]
    system_tokens = HEURISTIC.message(two[0]) + HEURISTIC.message(two[2])
    by_tokens = smart_compress(two, scored([0, 5, 0]), budget_tokens=system_tokens)
    assert (by_tokens.kept, by_tokens.kept_tokens) == ([0, 2], system_tokens)
    assert by_tokens.original_tokens == system_tokens + HEURISTIC.message(two[1])
    with pytest.raises(
        InvalidInput,
        match=r"^target_count 1 is below the 2 system messages \(and phase summaries\), which",
    ):
        smart_compress(two, scored([0, 5, 0]), target_count=1)
    with pytest.raises(
        InvalidInput,
        match=r"tokens of the system messages \(and phase summaries\), which are always kept$",
    ):
        smart_compress(two, scored([0, 5, 0]), budget_tokens=system_tokens - 1)
    with pytest.raises(ValueError, match=r"^one score per message$"):
        smart_compress(two, scored([0]), target_count=2)


def test_an_empty_conversation_compresses_to_itself() -> None:
    result = smart_compress([], [], target_count=3)
    assert (result.kept, result.dropped, result.compression_rate) == ([], [], 1.0)
    assert (result.original_tokens, result.kept_tokens) == (0, 0)
