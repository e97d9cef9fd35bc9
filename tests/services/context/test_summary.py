"""Rolling summary (seed 003 §2): headings, Chinese and English, folding, budget."""

from __future__ import annotations

from services.context.rolling_summary.extractive import (
    HEADINGS,
    SUMMARY_NAME,
    candidates,
    fit_summary,
    heading_for,
    is_summary_message,
    parse_summary,
)
from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import HEURISTIC

ZH = [
    ChatMessage("user", "我的目标是把认证系统迁移到 JWT。"),
    ChatMessage("assistant", "好的。"),
    ChatMessage("user", "我们决定用 Redis 存会话。必须兼容旧的 session 表。"),
    ChatMessage("assistant", "下一步要写迁移脚本 migrations/0002_jwt.py。"),
]
EN = [
    ChatMessage("user", "My goal is to ship the billing export by March 3."),
    ChatMessage("assistant", "We decided to switch to Stripe webhooks. It must not drop events."),
    ChatMessage("user", "thanks!"),
    ChatMessage("assistant", "TODO: remember to rotate the API key. Run `make deploy` after."),
]


def _summarise(messages: list[ChatMessage], budget: int = 400) -> str:
    found = candidates([(i, m, 5.0) for i, m in enumerate(messages)], None)
    fitted = fit_summary(found, budget, HEURISTIC)
    assert fitted is not None
    summary, _ = fitted
    message = summary.message()
    assert message.name == SUMMARY_NAME
    assert message.role == "assistant"
    assert HEURISTIC.message(message) <= budget
    return message.content


def test_chinese_sentences_land_under_their_headings() -> None:
    content = _summarise(ZH)
    sections = parse_summary(content).sections
    assert content.startswith("## Context Summary")
    assert any("JWT" in b for b in sections["Goal"])
    assert any("Redis" in b for b in sections["Decisions"])
    assert any("兼容" in b for b in sections["Constraints"])
    assert any("0002_jwt.py" in b for b in sections["Important Snippets"] + sections["TODOs"])
    assert "好的" not in content  # pleasantries are not summarised


def test_english_sentences_land_under_their_headings() -> None:
    sections = parse_summary(_summarise(EN)).sections
    assert any("billing export" in b for b in sections["Goal"])
    assert any("Stripe" in b for b in sections["Decisions"])
    assert any("drop events" in b for b in sections["Constraints"])
    assert any("rotate" in b for b in sections["TODOs"])
    assert not any("thanks" in b for h in HEADINGS for b in sections[h])


def test_a_previous_summary_is_folded_in_not_stacked() -> None:
    first = parse_summary(_summarise(ZH))
    found = candidates([(i, m, 5.0) for i, m in enumerate(EN)], first)
    fitted = fit_summary(found, 600, HEURISTIC)
    assert fitted is not None
    content = fitted[0].render()
    assert content.count("## Context Summary") == 1
    assert content.count("### Goal") == 1
    assert "JWT" in content
    assert "Stripe" in content
    assert is_summary_message(ChatMessage("assistant", content))


def test_a_tight_budget_keeps_the_best_bullets_and_fits() -> None:
    content = _summarise(ZH + EN, budget=60)
    assert content.count("\n- ") >= 1
    assert fit_summary(candidates([(0, ZH[0], 5.0)], None), 5, HEURISTIC) is None


def test_near_duplicates_are_summarised_once() -> None:
    repeated = [ChatMessage("user", f"我们决定把端口改为 {5400 + i}。") for i in range(20)]
    content = _summarise(repeated, budget=500)
    assert content.count("端口") == 1


def test_unknown_headings_are_kept_under_background() -> None:
    parsed = parse_summary("## Context Summary\n### Misc\n- something odd\nloose line")
    assert parsed.sections["Background"] == ["something odd", "loose line"]
    assert heading_for("nothing special here") == "Background"
