"""How far back a negator reaches, at both edges of each window.

Every older negation test put the negator right before the keyword (不急, "not worried"),
so a window of one word or two characters passed them all. These texts put it exactly at
the edge of the window and one step past it: a window one shorter fails the first kind,
one longer fails the second.
"""

from __future__ import annotations

import pytest

from services.text import EmotionAnalyzer, EmotionMatch


@pytest.mark.parametrize(
    "text",
    [
        "I am not very worried",  # two words back, behind a degree adverb
        "not at all worried",  # three words back: the edge of the window
    ],
)
def test_english_negator_within_three_words_cancels(analyzer: EmotionAnalyzer, text: str) -> None:
    result = analyzer.analyze(text)
    assert result.score == 0.0
    assert result.tags == []
    assert [(m.keyword, m.negated) for m in result.matches] == [("worried", True)]


def test_english_negator_four_words_back_does_not(analyzer: EmotionAnalyzer) -> None:
    # "not" is four words before "worried": outside the window, the worry stands.
    result = analyzer.analyze("not because I am worried")
    assert result.matches == [EmotionMatch("worried", 0.7, negated=False, modifier=1.0)]


def test_chinese_negator_before_the_adverb_cancels(analyzer: EmotionAnalyzer) -> None:
    # 不 ends three characters before 担心 (是那么): only the look-back from before the
    # adverb 那么 finds it. Without that check the adverb's x1.2 would give 0.84.
    result = analyzer.analyze("我不是那么担心")
    assert result.matches == [EmotionMatch("担心", 0.0, negated=True, modifier=1.2)]
    assert result.score == 0.0


def test_chinese_negator_two_characters_back_cancels(analyzer: EmotionAnalyzer) -> None:
    # 怎么 is no degree adverb, so only the three-character window reaches 不.
    result = analyzer.analyze("我不怎么担心")
    assert result.matches == [EmotionMatch("担心", 0.0, negated=True, modifier=1.0)]


def test_chinese_negator_three_characters_back_does_not(analyzer: EmotionAnalyzer) -> None:
    # 没想到会担心 ("unexpectedly worried"): 没 ends three characters before 担心, one
    # past the window, and the sentence affirms the worry.
    result = analyzer.analyze("没想到会担心")
    assert result.matches == [EmotionMatch("担心", 0.7, negated=False, modifier=1.0)]
