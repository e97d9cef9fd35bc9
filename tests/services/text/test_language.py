"""Which language a text is in, for recall: the Chinese share and the other-language test."""

from __future__ import annotations

import pytest

from services.text.language import OTHER_LANGUAGE_GAP, chinese_share, other_language


def test_the_chinese_share_counts_cjk_characters_against_latin_words() -> None:
    assert chinese_share("我在腾讯工作") == 1.0
    assert chinese_share("I work at Tencent") == 0.0
    assert chinese_share("我在Google工作") == pytest.approx(4 / 5)
    assert chinese_share("2026-11-28") == 0.5


@pytest.mark.parametrize(
    ("query", "memory", "across"),
    [
        ("How old is my daughter?", "我女儿今年七岁了", True),
        ("我周末一般做什么？", "I go hiking in the hills every weekend", True),
        ("Where do I work?", "我在Google工作", True),
        ("我在哪工作？", "我在Google工作", False),
        ("How old is my daughter?", "My daughter is seven", False),
        ("2026-11-28", "我女儿今年七岁了", True),  # exactly the gap: 0.5 against 1.0
        ("2026-11-28", "我在Google工作", False),
    ],
)
def test_texts_are_in_other_languages_when_their_shares_are_half_the_scale_apart(
    query: str, memory: str, across: bool
) -> None:
    assert other_language(chinese_share(query), chinese_share(memory)) is across
    assert other_language(chinese_share(memory), chinese_share(query)) is across
    assert OTHER_LANGUAGE_GAP == 0.5
