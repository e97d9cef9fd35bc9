"""Emotion / urgency analysis."""

from __future__ import annotations

import pytest

from services.text import DEFAULT_LEXICON, EmotionAnalyzer, EmotionMatch


def test_design_doc_weights_are_exact() -> None:
    expected = {"急": 1.0, "很重要": 0.9, "困扰": 0.8, "担心": 0.7, "想解决": 0.6, "无所谓": 0.1}
    for keyword, weight in expected.items():
        assert DEFAULT_LEXICON[keyword] == weight
    assert all(0.0 <= w <= 1.0 for w in DEFAULT_LEXICON.values())


class TestChinese:
    def test_design_example_urgent(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("这个问题很急，急需解决")
        assert "急" in result.tags
        assert result.tags == ["急", "急需"]
        assert result.score >= 0.9

    def test_very_important_longest_match(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("这件事很重要")
        assert result.tags == ["很重要"]
        assert result.score == 0.9
        assert result.matches == [EmotionMatch("很重要", 0.9, negated=False, modifier=1.0)]

    def test_plain_important_and_urgent_need(self, analyzer: EmotionAnalyzer) -> None:
        assert analyzer.analyze("这件事重要").score == 0.75
        result = analyzer.analyze("急需")
        assert result.tags == ["急需"]
        assert [m.keyword for m in result.matches] == ["急需"]

    def test_bare_urgent_weight(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("急")
        assert result.tags == ["急"]
        assert result.score == 1.0

    @pytest.mark.parametrize(
        ("text", "keyword"),
        [
            ("不急", "急"),
            ("不担心", "担心"),
            ("我一点也不着急", "着急"),
            ("不太担心", "担心"),
            ("别担心", "担心"),
            ("没有那么担心", "担心"),
            ("这件事不是很重要", "很重要"),
        ],
    )
    def test_negation_cancels(self, analyzer: EmotionAnalyzer, text: str, keyword: str) -> None:
        result = analyzer.analyze(text)
        assert result.tags == []
        assert result.score == 0.0
        assert [(m.keyword, m.negated, m.weight) for m in result.matches] == [(keyword, True, 0.0)]

    def test_negation_stops_at_punctuation(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("不是这个，急需处理")
        assert result.tags == ["急需"]
        assert result.score == 1.0

    def test_negation_only_affects_its_keyword(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("我担心你不急")
        assert result.tags == ["担心"]
        assert result.score == 0.7

    def test_pseudo_negations_do_not_negate(self, analyzer: EmotionAnalyzer) -> None:
        assert analyzer.analyze("特别担心").tags == ["担心"]
        assert analyzer.analyze("不过我很担心").tags == ["担心"]
        assert analyzer.analyze("忍不住担心").tags == ["担心"]

    def test_degree_adverbs_scale_and_cap(self, analyzer: EmotionAnalyzer) -> None:
        low = analyzer.analyze("有点担心").score
        base = analyzer.analyze("担心").score
        high = analyzer.analyze("非常担心").score
        assert (low, base, high) == (0.42, 0.7, 0.84)
        assert low < base < high
        assert analyzer.analyze("非常着急").score == 1.0
        assert analyzer.analyze("太急了").matches == [EmotionMatch("急", 1.0, False, 1.2)]

    def test_indifference_is_low(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("吃什么都行，我无所谓")
        assert result.tags == ["都行", "无所谓"]
        assert result.score == 0.1


class TestEnglish:
    def test_negated_worry(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("I'm not worried")
        assert result.tags == []
        assert result.score == 0.0
        assert result.matches[0].negated

    def test_curly_apostrophe_contraction_negates(self, analyzer: EmotionAnalyzer) -> None:
        assert analyzer.analyze("I really don\u2019t worry").tags == []

    def test_case_insensitive_and_multiple(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("This is URGENT, reply ASAP!")
        assert result.tags == ["urgent", "asap"]
        assert result.score == 1.0

    def test_inflections_hit_base_keyword(self, analyzer: EmotionAnalyzer) -> None:
        assert analyzer.analyze("I keep worrying about it").tags == ["worry"]
        assert analyzer.analyze("So many worries").tags == ["worry"]
        assert analyzer.analyze("I was worried").tags == ["worried"]

    def test_phrase_longest_match(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("This is very important")
        assert result.tags == ["very important"]
        assert result.score == 0.9

    def test_degree_modifiers(self, analyzer: EmotionAnalyzer) -> None:
        assert analyzer.analyze("I am so worried").score == 0.84
        assert analyzer.analyze("a bit worried").score == 0.42
        assert analyzer.analyze("kind of anxious").score == 0.48
        assert analyzer.analyze("extremely urgent").score == 1.0

    def test_word_boundaries_and_false_friends(self, analyzer: EmotionAnalyzer) -> None:
        assert analyzer.analyze("import the data").tags == []
        assert analyzer.analyze("an unimportant shattered glove").tags == []

    def test_dont_care_is_a_phrase_not_negation(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("Honestly I don't care")
        assert result.tags == ["don't care"]
        assert result.score == 0.1

    def test_mixed_language_order(self, analyzer: EmotionAnalyzer) -> None:
        assert analyzer.analyze("deadline 快到了，好焦虑").tags == ["deadline", "焦虑"]


class TestExplicitTags:
    def test_merged_known_and_unknown(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("有点担心", explicit_tags=[" 开会 ", "", "担心", "Urgent"])
        assert result.tags == ["担心", "开会", "urgent"]
        assert result.score == 1.0

    def test_unknown_tag_weight(self, analyzer: EmotionAnalyzer) -> None:
        result = analyzer.analyze("今天天气不错", explicit_tags=["旅行"])
        assert result.tags == ["旅行"]
        assert result.score == 0.5

    def test_custom_explicit_weight_and_lexicon(self) -> None:
        custom = EmotionAnalyzer(lexicon={"deadline": 0.3, "考试": 0.9}, explicit_tag_weight=0.2)
        assert custom.analyze("考试", explicit_tags=["x"]).score == 0.9
        assert custom.analyze("急", explicit_tags=["x"]).tags == ["x"]
        assert custom.analyze("急", explicit_tags=["x"]).score == 0.2
        assert custom.analyze("two deadlines").tags == ["deadline"]

    def test_invalid_configuration(self) -> None:
        with pytest.raises(ValueError, match="explicit_tag_weight"):
            EmotionAnalyzer(explicit_tag_weight=1.5)
        with pytest.raises(ValueError, match="invalid lexicon entry"):
            EmotionAnalyzer(lexicon={"急": 2.0})


class TestScoreTags:
    def test_max_of_lexicon_weights(self, analyzer: EmotionAnalyzer) -> None:
        assert analyzer.score_tags(["担心", "急"]) == 1.0
        assert analyzer.score_tags(["无所谓"]) == 0.1
        assert analyzer.score_tags(["很重要", "困扰"]) == 0.9

    def test_unknown_and_empty(self, analyzer: EmotionAnalyzer) -> None:
        assert analyzer.score_tags([]) == 0.0
        assert analyzer.score_tags(["", "  "]) == 0.0
        assert analyzer.score_tags(["无所谓", "旅行"]) == 0.5


def test_extract_is_tags(analyzer: EmotionAnalyzer) -> None:
    assert analyzer.extract("这个问题很急，急需解决") == ["急", "急需"]
    assert analyzer.extract("") == []
