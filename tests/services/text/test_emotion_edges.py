"""Emotion analysis where `make mutation` found the tests silent: the nearest of two
negators, a pseudo-negation before a real one, an adverb two words back, the edges of the
constructor's ranges, longest-first matching of a custom lexicon, and rounding."""

from __future__ import annotations

import pytest

from services.text import EmotionAnalyzer, EmotionMatch


def test_the_nearest_of_two_negators_decides(analyzer: EmotionAnalyzer) -> None:
    # 不知道为什么不担心: the first 不 is far out of the window, the second right before.
    result = analyzer.analyze("不知道为什么不担心")
    assert result.matches == [EmotionMatch("担心", 0.0, negated=True, modifier=1.0)]


def test_a_masked_pseudo_negation_keeps_the_positions_of_what_follows(
    analyzer: EmotionAnalyzer,
) -> None:
    # 不过 ("but") is masked, character for character; the 不 after it still negates.
    result = analyzer.analyze("不过不担心")
    assert result.matches == [EmotionMatch("担心", 0.0, negated=True, modifier=1.0)]


def test_an_english_adverb_two_words_back_still_modifies(analyzer: EmotionAnalyzer) -> None:
    result = analyzer.analyze("I am so deeply worried")
    assert result.matches == [EmotionMatch("worried", 0.84, negated=False, modifier=1.2)]


def test_the_constructor_accepts_the_ends_of_its_ranges() -> None:
    silent = EmotionAnalyzer(lexicon={"meh": 0.0}, explicit_tag_weight=0.0)
    assert silent.analyze("meh", explicit_tags=["x"]).score == 0.0
    assert silent.analyze("meh").tags == ["meh"]
    loud = EmotionAnalyzer(explicit_tag_weight=1.0)
    assert loud.analyze("", explicit_tags=["x"]).score == 1.0
    with pytest.raises(ValueError, match=r"^explicit_tag_weight must be within 0\.\.1$"):
        EmotionAnalyzer(explicit_tag_weight=-0.1)
    with pytest.raises(ValueError, match=r"^lexicon keyword '!!' has no letters or digits$"):
        EmotionAnalyzer(lexicon={"!!": 0.5})


def test_a_longer_english_phrase_wins_over_its_first_word() -> None:
    custom = EmotionAnalyzer(lexicon={"worried": 0.7, "worried sick": 1.0})
    assert custom.analyze("I am worried sick").matches == [
        EmotionMatch("worried sick", 1.0, negated=False, modifier=1.0)
    ]


def test_weights_are_rounded_to_four_places() -> None:
    # 0.7 x 1.2 is 0.84 in the results, not 0.8399999999999999.
    assert EmotionAnalyzer(lexicon={"foo": 0.12345}).analyze("foo").score == 0.1235


@pytest.mark.parametrize("text", ["不，急需处理", "不\n急需处理"])
def test_punctuation_and_newlines_end_a_negators_reach(
    analyzer: EmotionAnalyzer, text: str
) -> None:
    # 不 is within three characters of 急需, but in the clause before.
    assert analyzer.analyze(text).matches == [EmotionMatch("急需", 1.0, False, 1.0)]


def test_a_negated_keyword_does_not_hide_the_ones_after_it(analyzer: EmotionAnalyzer) -> None:
    result = analyzer.analyze("不急，但是我担心")
    assert (result.tags, result.score) == (["担心"], 0.7)


def test_an_unknown_explicit_tag_keeps_its_spelling(analyzer: EmotionAnalyzer) -> None:
    assert analyzer.analyze("", explicit_tags=["My Trip", "URGENT"]).tags == ["My Trip", "urgent"]


@pytest.mark.parametrize(
    ("text", "tags"),
    [
        ("好焦虑, urgent", ["焦虑", "urgent"]),
        ("urgent，好焦虑", ["urgent", "焦虑"]),
        ("urgent 好焦虑", ["urgent", "焦虑"]),  # one clause
        ("好焦虑 urgent", ["焦虑", "urgent"]),
    ],
)
def test_tags_keep_the_order_of_the_text_across_languages(
    analyzer: EmotionAnalyzer, text: str, tags: list[str]
) -> None:
    assert analyzer.analyze(text).tags == tags


@pytest.mark.parametrize(
    ("text", "keyword"), [("I am not worried but urgent", "urgent"), ("别担心急", "急")]
)
def test_a_negator_before_the_previous_keyword_is_out_of_reach(
    analyzer: EmotionAnalyzer, text: str, keyword: str
) -> None:
    # The look-back stops at the previous match: its negator was for it.
    assert analyzer.analyze(text).tags == [keyword]


def test_without_an_adverb_the_second_look_back_is_the_first(analyzer: EmotionAnalyzer) -> None:
    # 不 is six characters back: out of reach from the keyword, and there is no adverb
    # whose start would move the look-back closer to it.
    assert analyzer.analyze("不知道为什么担心").matches == [EmotionMatch("担心", 0.7, False, 1.0)]


@pytest.mark.parametrize("quote", ["\u2019", "\u2018"])
def test_a_curly_quote_either_way_makes_a_negating_contraction(
    analyzer: EmotionAnalyzer, quote: str
) -> None:
    assert analyzer.analyze(f"I really don{quote}t worry").tags == []
