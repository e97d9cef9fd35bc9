"""The days a query names are the person's: Shanghai, Los Angeles and London, across
midnight and a daylight-saving change."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest

from services.core.errors import InvalidInput
from services.core.time_zones import check_time_zone, person_zone
from services.recall.ranking.time_expressions import find_time_expression

SHANGHAI = ZoneInfo("Asia/Shanghai")
LOS_ANGELES = ZoneInfo("America/Los_Angeles")
LONDON = ZoneInfo("Europe/London")


def utc(year: int, month: int, day: int, hour: int = 0, minute: int = 0) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=UTC)


def span(query: str, now: datetime, zone: ZoneInfo | None = None) -> tuple[datetime, datetime]:
    found = find_time_expression(query, now, zone) if zone else find_time_expression(query, now)
    assert found is not None
    assert found.start is not None
    assert found.end is not None
    return found.start, found.end


def test_half_past_seven_in_shanghai_on_the_tenth_is_the_tenth() -> None:
    now = utc(2026, 3, 9, 23, 30)  # 07:30 on the 10th in Shanghai
    assert span("what did I say today", now, SHANGHAI) == (
        utc(2026, 3, 9, 16),
        utc(2026, 3, 10, 16),
    )
    assert span("昨天我说了什么", now, SHANGHAI) == (utc(2026, 3, 8, 16), utc(2026, 3, 9, 16))
    # In UTC it is still the 9th: what the service answered before zones.
    assert span("today", now) == (utc(2026, 3, 9), utc(2026, 3, 10))


def test_late_evening_in_los_angeles_is_the_day_before_utc_s() -> None:
    now = utc(2026, 1, 10, 6)  # 22:00 on the 9th in Los Angeles (UTC-8)
    assert span("yesterday", now, LOS_ANGELES) == (utc(2026, 1, 8, 8), utc(2026, 1, 9, 8))
    assert span("today", now, LOS_ANGELES) == (utc(2026, 1, 9, 8), utc(2026, 1, 10, 8))


def test_a_london_day_across_the_clocks_going_forward_is_23_hours() -> None:
    now = utc(2026, 3, 30, 10)  # Monday; the clocks went forward at 01:00 UTC on Sunday
    start, end = span("yesterday", now, LONDON)
    assert (start, end) == (utc(2026, 3, 29, 0), utc(2026, 3, 29, 23))
    assert (end - start).total_seconds() == 23 * 3600
    start, end = span("today", now, LONDON)  # a summer day: midnight is 23:00 UTC
    assert (start, end) == (utc(2026, 3, 29, 23), utc(2026, 3, 30, 23))


def test_a_london_day_across_the_clocks_going_back_is_25_hours() -> None:
    now = utc(2026, 10, 26, 12)  # Monday; the clocks went back at 01:00 UTC on Sunday
    start, end = span("yesterday", now, LONDON)
    assert (end - start).total_seconds() == 25 * 3600


def test_a_week_and_an_absolute_date_are_local_too() -> None:
    now = utc(2026, 3, 9, 23, 30)  # Tuesday 10 March, 07:30 in Shanghai
    assert span("last week", now, SHANGHAI) == (utc(2026, 3, 1, 16), utc(2026, 3, 8, 16))
    assert span("on 2026-03-10", now, SHANGHAI) == (utc(2026, 3, 9, 16), utc(2026, 3, 10, 16))


def test_zones_are_checked_when_set_and_forgiven_when_read() -> None:
    assert check_time_zone("Asia/Shanghai").key == "Asia/Shanghai"
    for bad in ("Mars/Olympus_Mons", "../../etc/passwd", "", "x" * 65):
        with pytest.raises(InvalidInput):
            check_time_zone(bad)
    assert person_zone(None) is UTC
    assert person_zone("Mars/Olympus_Mons") is UTC  # a host without it counts in UTC
    assert person_zone("Europe/London") == LONDON
