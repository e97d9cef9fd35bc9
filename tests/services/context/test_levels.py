"""Compression levels (seed 001 §3.2): chosen by rate, preserve important items, drop last."""

from __future__ import annotations

import pytest

from services.context.rolling_summary.extractive import sentence_score
from services.context.shared.levels import (
    Item,
    LevelCompressor,
    level_for,
    required_rate,
    sentences,
)
from services.context.shared.tokens import HEURISTIC


def compressor() -> LevelCompressor:
    return LevelCompressor(HEURISTIC.count, sentence_score, lambda t: t.split()[:3])


@pytest.mark.parametrize(
    ("rate", "level"),
    [
        (0.0, "none"),
        (0.1, "light"),
        (0.29, "light"),
        (0.3, "medium"),
        (0.59, "medium"),
        (0.6, "heavy"),
        (0.79, "heavy"),
        (0.8, "extreme"),
        (0.95, "extreme"),
    ],
)
def test_level_follows_the_seeds_table(rate: float, level: str) -> None:
    assert level_for(rate) == level


def test_required_rate() -> None:
    assert required_rate(1000, 700) == 0.3
    assert required_rate(1000, 2000) == 0.0
    assert required_rate(0, 10) == 0.0


def test_sentences_split_chinese_and_english() -> None:
    assert sentences("我们决定用 Postgres。端口是 5432！Then we migrate. Done") == [
        "我们决定用 Postgres。",
        "端口是 5432！",
        "Then we migrate.",
        "Done",
    ]


def test_light_removes_repeats_and_medium_keeps_the_informative_sentence() -> None:
    c = compressor()
    assert c.shorten("Hello   there.  Hello there. Bye.", "light") == "Hello there. Bye."
    text = "Nice weather today. The config file is config/app.yaml with port 8080. We chatted."
    medium = c.shorten(text, "medium")
    assert "config/app.yaml" in medium
    assert HEURISTIC.count(medium) < HEURISTIC.count(text)
    assert c.shorten("one two three four", "extreme") == "one, two, three"


def test_fit_keeps_important_items_intact_and_drops_lowest_first() -> None:
    c = compressor()
    filler = " ".join(f"Filler sentence {k} says little." for k in range(6))
    items = [
        Item(1, "Important: deploy to eu-west-1 on Friday. " + filler, importance=0.9),
        Item(2, "Low value chat. " + filler, importance=0.1),
        Item(3, "Another low one. " + filler, importance=0.2),
    ]
    total = sum(HEURISTIC.count(i.text) for i in items)
    fitted = c.fit(items, total // 2, preserve_threshold=0.7)
    assert fitted.level == "medium"
    assert fitted.tokens <= total // 2
    kept = {f.key: f for f in fitted.kept}
    assert kept[1].level in ("none", "light")  # preserved (lightly above rate 0.5)
    assert "eu-west-1" in kept[1].text
    # A target only the important item fits: the others go, lowest importance first.
    tight = c.fit(items, HEURISTIC.count(items[0].text), preserve_threshold=0.7)
    assert [f.key for f in tight.kept] == [1]
    assert tight.dropped == [2, 3]


def test_fit_never_exceeds_the_target() -> None:
    c = compressor()
    items = [
        Item(i, f"item {i} " + "word " * (i * 7 % 40 + 1), importance=i / 20) for i in range(20)
    ]
    for target in (0, 1, 5, 50, 200, 1000):
        assert c.fit(items, target, 0.7).tokens <= max(target, 0)
