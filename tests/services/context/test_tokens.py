"""Token estimation (seed 001 §2.2): CJK characters, words and symbols counted apart."""

from __future__ import annotations

import pytest

from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import (
    HEURISTIC,
    MESSAGE_OVERHEAD_TOKENS,
    get_token_estimator,
    heuristic_tokens,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", 0),
        ("   \n\t", 0),
        ("你好", 3),  # 2 x 1.5
        ("hello world", 3),  # 2 x 1.3 = 2.6
        ("ten words to check the rounding is not off by", 13),  # 10 x 1.3 exactly
        ("Hello, world.", 5),  # 2.6 words + 2 punctuation runs
        ("wait...", 3),  # one word + one run of dots
        ("修改 config.py 文件", 10),  # 4 CJK (6) + 2 words (2.6) + "." (1) = 9.6
        ("我住在北京。", 9),  # 5 x 1.5 + 1 full-width stop = 8.5
        ("auth/login.py", 6),  # 3 words + 2 symbols = 5.9
        ("snake_case_name", 6),  # 3 words + 2 underscores
        ("2026年1月", 6),  # 2 numbers (2.6) + 2 CJK (3) = 5.6
        ("こんにちは", 8),  # kana count like Han
    ],
)
def test_heuristic_counts(text: str, expected: int) -> None:
    assert heuristic_tokens(text) == expected


def test_chinese_costs_more_per_character_than_english() -> None:
    # The seed's ratio: a CJK character is worth more than an English word's letters.
    assert heuristic_tokens("认证系统") > heuristic_tokens("auth system")


def test_message_adds_role_overhead_and_name() -> None:
    plain = ChatMessage(role="user", content="hello world")
    named = ChatMessage(role="tool", content="hello world", name="read_file")
    assert HEURISTIC.message(plain) == MESSAGE_OVERHEAD_TOKENS + 3
    assert HEURISTIC.message(named) == MESSAGE_OVERHEAD_TOKENS + 3 + heuristic_tokens("read_file")
    assert HEURISTIC.messages([plain, named]) == HEURISTIC.message(plain) + HEURISTIC.message(named)


def test_estimator_choice_never_fails_without_tiktoken() -> None:
    assert get_token_estimator("heuristic") is HEURISTIC
    for chosen in (get_token_estimator("auto"), get_token_estimator("tiktoken")):
        assert chosen.name in {"heuristic", "tiktoken"}
        assert chosen.count("hello world") >= 2
