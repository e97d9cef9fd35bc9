"""Topic extraction."""

from __future__ import annotations

import pytest

from services.text import Tokenizer, TopicExtractor


def test_chinese_project_deadline(topics: TopicExtractor) -> None:
    result = topics.extract("这个项目的截止日期是下周五，项目经理要求我们必须按时交付报告")
    assert 0 < len(result) <= 5
    assert {"项目", "截止", "日期", "截止日期", "项目经理"} & set(result)
    assert not {"的", "我们", "必须", "是"} & set(result)


def test_english_sentences_share_stemmed_topic(topics: TopicExtractor) -> None:
    first = topics.extract("My cats love sleeping on the sofa.")
    second = topics.extract("The cat is black and very fat.")
    assert "cat" in first
    assert "cat" in second
    assert "cats" not in first
    assert not {"my", "the", "is", "on", "and"} & set(first + second)


def test_numbers_single_chars_and_empty_dropped(topics: TopicExtractor) -> None:
    assert topics.extract("") == []
    assert topics.extract("   ") == []
    assert topics.extract("2024 3.14 50% a b x") == []


def test_top_k_limits_and_distinct(tokenizer: Tokenizer) -> None:
    text = "Cats and more cats. The cat sat with another cat near dogs and a dog house."
    result = TopicExtractor(top_k=2, tokenizer=tokenizer).extract(text)
    assert len(result) == 2
    assert result[0] == "cat"
    assert len(set(result)) == len(result)
    assert TopicExtractor(top_k=0, tokenizer=tokenizer).extract(text) == []


def test_invalid_top_k() -> None:
    with pytest.raises(ValueError, match="top_k"):
        TopicExtractor(top_k=-1)
