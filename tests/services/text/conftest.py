"""Shared fixtures: jieba's dictionary is loaded once per test session."""

from __future__ import annotations

import pytest

from services.text import EmotionAnalyzer, Tokenizer, TopicExtractor, get_tokenizer


@pytest.fixture(scope="session")
def tokenizer() -> Tokenizer:
    tok = get_tokenizer()
    tok.warm()
    return tok


@pytest.fixture(scope="session")
def analyzer() -> EmotionAnalyzer:
    return EmotionAnalyzer()


@pytest.fixture(scope="session")
def topics(tokenizer: Tokenizer) -> TopicExtractor:
    return TopicExtractor(tokenizer=tokenizer)
