"""Statement, request, question or pleasantry (services/context/rolling_summary/statements.py)."""

from __future__ import annotations

import pytest

from services.context.rolling_summary.cards import (
    Card,
    cards_from_candidates,
    is_card_worthy,
    llm_cards_worth_keeping,
)
from services.context.rolling_summary.extractive import Candidate
from services.context.rolling_summary.statements import (
    as_instruction,
    form_of,
    voices_concern,
    without_filler,
)


@pytest.mark.parametrize(
    "sentence",
    [
        "Right.",
        "Yes please.",
        "Hmm, maybe.",
        "Let me think about it.",
        "对，谢谢。",
        "好的。",
        "Great, thanks!",
        "Makes sense.",
        "明白。",
        "OK 收到。",
    ],
)
def test_acknowledgements_are_pleasantries(sentence: str) -> None:
    assert form_of(sentence) == "pleasantry"


@pytest.mark.parametrize(
    ("sentence", "form"),
    [
        ("Also, can you remind me what I need to pay before tomorrow?", "request"),
        ("你好，帮我理一下这周的事情。", "request"),
        ("你觉得怎么样？", "question"),
        ("Do you want a training plan?", "question"),
        ("No thanks, my club gives me one.", "statement"),
        ("对账服务要迁到 PostgreSQL。", "statement"),  # 对 and 好 inside words are not 对/好
        ("医生告诉我要少喝咖啡。", "statement"),
    ],
)
def test_forms(sentence: str, form: str) -> None:
    assert form_of(sentence) == form


def test_a_request_becomes_an_instruction() -> None:
    assert (
        as_instruction("Also, can you remind me what I need to pay before tomorrow?")
        == "Remind me what I need to pay before tomorrow"
    )
    assert as_instruction("Can you help me sort out my studio plans?") == (
        "Help me sort out my studio plans"
    )
    assert as_instruction("你好，帮我理一下这周的事情。") == "帮我理一下这周的事情。"
    assert as_instruction("你能帮我查一下航班吗？") == "帮我查一下航班"


def test_fillers_and_concerns() -> None:
    assert without_filler("嗯，我决定明天就请假。") == "我决定明天就请假。"
    assert without_filler("Um, I moved it.") == "I moved it."
    assert voices_concern("清明回成都的高铁票还没买，急！")
    assert voices_concern("I'm worried the launch will slip.")
    assert not voices_concern("I prefer the train.")


def test_only_the_persons_statements_are_card_worthy() -> None:
    said = Candidate("Decisions", "I decided to switch to day shifts.", 9.0, 3, "user")
    advised = Candidate("Constraints", "You must never skip a warm-up.", 9.0, 4, "assistant")
    asked = Candidate("Goal", "Remind me what I need to pay", 9.0, 5, "user", "request")
    carried = Candidate("Decisions", "I decided to switch to day shifts.", 9.0, None, "user")
    assert [is_card_worthy(c) for c in (said, advised, asked)] == [True, False, False]
    cards = cards_from_candidates([said, advised, asked, carried], lambda text: text.split())
    assert [c.content for c in cards] == ["I decided to switch to day shifts."]


def test_the_llms_questions_and_pleasantries_are_not_kept_as_cards() -> None:
    cards = [
        Card("I decided to switch to day shifts.", "decision"),
        Card("Would you like a training plan?", "goal"),
        Card("Yes please.", "goal"),
    ]
    assert [c.content for c in llm_cards_worth_keeping(cards)] == [
        "I decided to switch to day shifts."
    ]
