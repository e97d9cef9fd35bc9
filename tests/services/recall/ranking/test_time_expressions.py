"""Time expressions in English and Chinese queries, resolved against a fixed clock."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.recall.ranking.time_expressions import TimeExpression, find_time_expression

# A Wednesday.
NOW = datetime(2026, 1, 14, 15, 30, tzinfo=UTC)


def day(year: int, month: int, d: int) -> datetime:
    return datetime(year, month, d, tzinfo=UTC)


def span(query: str) -> tuple[datetime | None, datetime | None]:
    found = find_time_expression(query, NOW)
    assert found is not None, query
    return found.start, found.end


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("What did Melanie paint on October 13, 2023?", day(2023, 10, 13), day(2023, 10, 14)),
        ("the party on 8 May, 2023", day(2023, 5, 8), day(2023, 5, 9)),
        ("on the 1st of March 2024", day(2024, 3, 1), day(2024, 3, 2)),
        ("log from 2023-05-08", day(2023, 5, 8), day(2023, 5, 9)),
        ("What did Maria do in May 2023?", day(2023, 5, 1), day(2023, 6, 1)),
        ("Who did Nate invite in June of 2022", day(2022, 6, 1), day(2022, 7, 1)),
        ("what happened in 2022", day(2022, 1, 1), day(2023, 1, 1)),
        ("yesterday's meeting", day(2026, 1, 13), day(2026, 1, 14)),
        ("what did I eat last week", day(2026, 1, 5), day(2026, 1, 12)),
        ("last month", day(2025, 12, 1), day(2026, 1, 1)),
        ("last year", day(2025, 1, 1), day(2026, 1, 1)),
        ("3 days ago", day(2026, 1, 11), day(2026, 1, 12)),
        ("2023年5月8日的会议", day(2023, 5, 8), day(2023, 5, 9)),
        ("2023年5月", day(2023, 5, 1), day(2023, 6, 1)),
        ("上周我说了什么", day(2026, 1, 5), day(2026, 1, 12)),
        ("上个月的账单", day(2025, 12, 1), day(2026, 1, 1)),
        ("去年五月去了哪里", day(2025, 5, 1), day(2025, 6, 1)),
        ("今年3月的计划", day(2026, 3, 1), day(2026, 4, 1)),
        ("昨天", day(2026, 1, 13), day(2026, 1, 14)),
        ("三天前", day(2026, 1, 11), day(2026, 1, 12)),
        ("5月8号", day(2026, 5, 8), day(2026, 5, 9)),
    ],
)
def test_spans(query: str, start: datetime, end: datetime) -> None:
    assert span(query) == (start, end)


def test_month_of_any_year() -> None:
    for query, month in (("When did Melanie go camping in June?", 6), ("五月的时候", 5)):
        found = find_time_expression(query, NOW)
        assert found is not None
        assert (found.start, found.end, found.month) == (None, None, month)
        assert found.match(day(2019, month, 20), 3.0) == 1.0
        assert found.match(day(2019, month % 12 + 1, 15), 3.0) < 0.1


@pytest.mark.parametrize(
    "query",
    ["I may go", "What did Caroline research?", "march on", "2023", "the 5 of us", "你好"],
)
def test_no_time_expression(query: str) -> None:
    assert find_time_expression(query, NOW) is None


def test_explicit_date_beats_relative_words() -> None:
    found = find_time_expression("What did Maria do last weekend before April 10, 2023?", NOW)
    assert found is not None
    assert (found.start, found.text) == (day(2023, 4, 10), "April 10, 2023")


def test_match_is_one_inside_and_halves_per_half_life_outside() -> None:
    found = TimeExpression("x", day(2023, 5, 1), day(2023, 6, 1))
    assert found.match(day(2023, 5, 31), 3.0) == 1.0
    assert found.match(day(2023, 6, 4), 3.0) == pytest.approx(0.5)
    assert found.match(day(2023, 4, 25), 3.0) == pytest.approx(0.25)
    assert found.describe()["start"] == "2023-05-01T00:00:00+00:00"
