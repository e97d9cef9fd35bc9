"""What a query asks about: its feeling families, its day, and its content words."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.core.settings import Settings
from services.recall.ranking.feelings import feeling_match, query_feelings
from services.recall.ranking.time_expressions import find_time_expression
from services.recall.ranking.understanding import understand
from services.text.analysis import TextAnalyzer

NOW = datetime(2026, 3, 13, 20, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def analyzer() -> TextAnalyzer:
    return TextAnalyzer(Settings())


@pytest.mark.parametrize(
    ("query", "families"),
    [
        ("我有什么急事？", {"urgent"}),
        ("What do I need to do urgently?", {"urgent"}),
        ("我最近有哪些很重要的事情？", {"important"}),
        ("What am I worried about?", {"worried"}),
        ("我在担心什么？", {"worried"}),
        # A modal in a question asks for a thing, not for what is urgent.
        ("发布前必须拿到什么认证？", set()),
        ("Where does my sister live?", set()),
    ],
)
def test_query_feelings(analyzer: TextAnalyzer, query: str, families: set[str]) -> None:
    assert query_feelings(query, analyzer.emotions) == families


def test_feeling_match_by_family() -> None:
    assert feeling_match(frozenset({"urgent"}), ["急"]) == 1.0
    assert feeling_match(frozenset({"urgent"}), ["很重要"]) == 0.8
    assert feeling_match(frozenset({"worried"}), ["烦躁"]) == 0.5
    assert feeling_match(frozenset({"worried"}), ["喜欢"]) == 0.0
    assert feeling_match(frozenset(), ["急"]) == 0.0


@pytest.mark.parametrize(
    ("query", "day"),
    [
        ("What did I mention on 5 March?", 5),
        ("What did I note on March 7?", 7),
        ("3月4日我提到了哪些事？", 4),
    ],
)
def test_a_day_of_this_year(query: str, day: int) -> None:
    found = find_time_expression(query, NOW)
    assert found is not None
    assert (found.start, found.end) == (
        datetime(2026, 3, day, tzinfo=UTC),
        datetime(2026, 3, day + 1, tzinfo=UTC),
    )


def test_a_day_still_ahead_is_last_years() -> None:
    found = find_time_expression("on 20 March", NOW)
    assert found is not None
    assert found.start == datetime(2025, 3, 20, tzinfo=UTC)


def test_content_words(analyzer: TextAnalyzer) -> None:
    recap = understand("3月4日我提到了哪些事？", analyzer, NOW)
    assert recap.pure_time  # nothing but a past day to look for
    assert not {"4", "^日", "^月", "提到"} & set(recap.terms)
    said = understand("What did I tell you yesterday?", analyzer, NOW)
    assert said.pure_time
    # A day ahead can only be in what a memory says: it stays a content word.
    ahead = understand("明天的会议", analyzer, NOW)
    assert "明天" in ahead.terms
    assert not ahead.pure_time
    asked = understand("房贷每个月还多少钱？", analyzer, NOW)
    assert "房贷" in asked.terms
    assert "多少" not in asked.terms
