"""Time expressions in a recall query, in English and Chinese, as a span of dates.

"in May 2023", "on October 13, 2023", "5 March", "2023-05-08", "last week", "3 days ago",
「上周」「去年五月」「2023年5月8日」「三天前」 each become a :class:`TimeExpression`: a
half-open UTC interval ``[start, end)`` (a day, a week, a month, a year), or a month of
any year for "in June" / 「五月」 with no year given. Relative expressions are resolved
against the recall's clock; weeks start on Monday.

Days are the person's: in their time zone, "yesterday" at 07:30 in Shanghai is the day
before the 10th there, which began at 16:00 UTC on the 8th. The finders count in wall-clock
time (a local time labelled UTC); each bound is then placed in the zone on its own date,
so a span across a daylight-saving change is 23 or 25 hours long, as the person's day is.

When a query holds several, the most specific absolute one wins ("last weekend before
April 10, 2023" → April 10, 2023): an explicit date anchors better than a relative word.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta, tzinfo

_MONTH_NAMES = (
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
)
MONTHS: dict[str, int] = {name: n for n, name in enumerate(_MONTH_NAMES, start=1)}
MONTHS.update({name[:3]: n for name, n in list(MONTHS.items()) if name != "may"})
MONTHS["sept"] = 9
_MONTH = "|".join(sorted(MONTHS, key=len, reverse=True))
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5}
_ZH_DIGITS.update({"六": 6, "七": 7, "八": 8, "九": 9, "十": 10})
_ZH_NUMBER = r"[0-9]{1,2}|[一二两三四五六七八九十]{1,3}"
_EN_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_EN_NUMBER_WORDS.update({"six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10})
_EN_NUMBER = r"\d{1,3}|a|an|one|two|three|four|five|six|seven|eight|nine|ten"

# Priorities: a smaller number is more specific and wins.
DAY, MONTH, YEAR, RELATIVE, MONTH_OF_ANY_YEAR = 0, 1, 2, 3, 4


@dataclass(frozen=True)
class TimeExpression:
    """A span of time a query refers to."""

    text: str
    start: datetime | None  # inclusive, UTC; None for a month of any year
    end: datetime | None  # exclusive
    month: int | None = None  # set for a month of any year ("in June", 「五月」)
    priority: int = RELATIVE

    def distance_days(self, when: datetime) -> float:
        """Days between ``when`` and the span: 0 inside it."""
        when = when if when.tzinfo else when.replace(tzinfo=UTC)
        if self.start is None or self.end is None:
            assert self.month is not None
            return 0.0 if when.month == self.month else _days_to_month(when, self.month)
        if when < self.start:
            return (self.start - when).total_seconds() / 86400.0
        if when >= self.end:
            return (when - self.end).total_seconds() / 86400.0
        return 0.0

    def match(self, when: datetime, half_life_days: float) -> float:
        """1 inside the span, halving every ``half_life_days`` outside it."""
        return float(0.5 ** (self.distance_days(when) / max(half_life_days, 1e-9)))

    def describe(self) -> dict[str, str | int | None]:
        """For explanations."""
        return {
            "text": self.text,
            "start": self.start.isoformat() if self.start else None,
            "end": self.end.isoformat() if self.end else None,
            "month_of_any_year": self.month,
        }


def _days_to_month(when: datetime, month: int) -> float:
    """Days from ``when`` to the nearest edge of ``month`` in the same or a neighbouring year."""
    best = float("inf")
    for year in (when.year - 1, when.year, when.year + 1):
        start, end = _month_span(year, month)
        gap = (start - when) if when < start else (when - end)
        best = min(best, gap.total_seconds() / 86400.0)
    return best


def _day(year: int, month: int, day: int) -> datetime:
    return datetime(year, month, day, tzinfo=UTC)


def _month_span(year: int, month: int) -> tuple[datetime, datetime]:
    last = calendar.monthrange(year, month)[1]
    return _day(year, month, 1), _day(year, month, last) + timedelta(days=1)


def _day_span(year: int, month: int, day: int) -> tuple[datetime, datetime] | None:
    if not (1 <= month <= 12 and 1 <= day <= calendar.monthrange(year, month)[1]):
        return None
    start = _day(year, month, day)
    return start, start + timedelta(days=1)


def _zh_number(text: str) -> int:
    """「三」→3, 「十二」→12, 「二十」→20, "12"→12."""
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0)
    return _ZH_DIGITS.get(text, 0)


def _en_number(text: str) -> int:
    return int(text) if text.isdigit() else _EN_NUMBER_WORDS[text.lower()]


def _today(now: datetime) -> datetime:
    return now.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)


def _week_span(now: datetime, weeks_back: int) -> tuple[datetime, datetime]:
    monday = _today(now) - timedelta(days=_today(now).weekday() + 7 * weeks_back)
    return monday, monday + timedelta(days=7)


def _shift_month(year: int, month: int, delta: int) -> tuple[int, int]:
    index = year * 12 + (month - 1) + delta
    return index // 12, index % 12 + 1


def _ago(now: datetime, count: int, unit: str) -> tuple[datetime, datetime]:
    """A span around "count units ago", one unit wide."""
    days = {"day": 1, "week": 7, "month": 30, "year": 365}[unit]
    centre = _today(now) - timedelta(days=count * days)
    return centre - timedelta(days=days // 2), centre + timedelta(days=days - days // 2 or 1)


Finder = Callable[[re.Match[str], datetime], TimeExpression | None]


def _absolute_day(match: re.Match[str], _now: datetime) -> TimeExpression | None:
    g = match.groupdict()
    month = int(g["mnum"]) if g.get("mnum") else MONTHS[g["mname"].lower()]
    span = _day_span(int(g["year"]), month, int(g["day"]))
    return TimeExpression(match.group(0), *span, priority=DAY) if span else None


def _absolute_month(match: re.Match[str], _now: datetime) -> TimeExpression | None:
    g = match.groupdict()
    month = int(g["mnum"]) if g.get("mnum") else MONTHS[g["mname"].lower()]
    if not 1 <= month <= 12:
        return None
    return TimeExpression(match.group(0), *_month_span(int(g["year"]), month), priority=MONTH)


def _absolute_year(match: re.Match[str], _now: datetime) -> TimeExpression | None:
    year = int(match.group("year"))
    return TimeExpression(match.group(0), _day(year, 1, 1), _day(year + 1, 1, 1), priority=YEAR)


def _month_of_any_year(match: re.Match[str], _now: datetime) -> TimeExpression | None:
    name = match.group("mname")
    month = MONTHS[name.lower()] if name in MONTHS or name.lower() in MONTHS else 0
    if not month:
        return None
    return TimeExpression(match.group(0), None, None, month=month, priority=MONTH_OF_ANY_YEAR)


def _en_day_of_month(match: re.Match[str], now: datetime) -> TimeExpression | None:
    """ "5 March", "March 7th" without a year: the latest such date not after today."""
    month, day = MONTHS[match.group("mname").lower()], int(match.group("day"))
    span = _day_span(now.year, month, day)
    if span is not None and span[0] > _today(now):
        span = _day_span(now.year - 1, month, day)
    return TimeExpression(match.group(0), *span, priority=DAY) if span else None


def _zh_month_day(match: re.Match[str], now: datetime) -> TimeExpression | None:
    """「5月8日」 without a year: this year's date."""
    span = _day_span(now.year, _zh_number(match.group("m")), _zh_number(match.group("d")))
    return TimeExpression(match.group(0), *span, priority=DAY) if span else None


def _zh_relative_month(match: re.Match[str], now: datetime) -> TimeExpression | None:
    """「去年五月」「今年3月」「五月」."""
    month = _zh_number(match.group("m"))
    if not 1 <= month <= 12:
        return None
    which = match.group("which")
    if which is None:
        return TimeExpression(match.group(0), None, None, month=month, priority=MONTH_OF_ANY_YEAR)
    year = now.year + {"前年": -2, "去年": -1, "今年": 0, "明年": 1}[which]
    return TimeExpression(match.group(0), *_month_span(year, month), priority=MONTH)


_RELATIVE_WORDS: dict[str, Callable[[datetime], tuple[datetime, datetime]]] = {
    "today": lambda n: (_today(n), _today(n) + timedelta(days=1)),
    "tonight": lambda n: (_today(n), _today(n) + timedelta(days=1)),
    "yesterday": lambda n: (_today(n) - timedelta(days=1), _today(n)),
    "last night": lambda n: (_today(n) - timedelta(days=1), _today(n)),
    "tomorrow": lambda n: (_today(n) + timedelta(days=1), _today(n) + timedelta(days=2)),
    "this week": lambda n: _week_span(n, 0),
    "last week": lambda n: _week_span(n, 1),
    "next week": lambda n: _week_span(n, -1),
    "last weekend": lambda n: (
        _week_span(n, 1)[0] + timedelta(days=5),
        _week_span(n, 1)[1],
    ),
    "this month": lambda n: _month_span(n.year, n.month),
    "last month": lambda n: _month_span(*_shift_month(n.year, n.month, -1)),
    "next month": lambda n: _month_span(*_shift_month(n.year, n.month, 1)),
    "this year": lambda n: (_day(n.year, 1, 1), _day(n.year + 1, 1, 1)),
    "last year": lambda n: (_day(n.year - 1, 1, 1), _day(n.year, 1, 1)),
    "next year": lambda n: (_day(n.year + 1, 1, 1), _day(n.year + 2, 1, 1)),
    "今天": lambda n: (_today(n), _today(n) + timedelta(days=1)),
    "昨天": lambda n: (_today(n) - timedelta(days=1), _today(n)),
    "前天": lambda n: (_today(n) - timedelta(days=2), _today(n) - timedelta(days=1)),
    "明天": lambda n: (_today(n) + timedelta(days=1), _today(n) + timedelta(days=2)),
    "本周": lambda n: _week_span(n, 0),
    "这周": lambda n: _week_span(n, 0),
    "上周末": lambda n: (_week_span(n, 1)[0] + timedelta(days=5), _week_span(n, 1)[1]),
    "上周": lambda n: _week_span(n, 1),
    "上星期": lambda n: _week_span(n, 1),
    "上个星期": lambda n: _week_span(n, 1),
    "上礼拜": lambda n: _week_span(n, 1),
    "下周": lambda n: _week_span(n, -1),
    "下星期": lambda n: _week_span(n, -1),
    "下个星期": lambda n: _week_span(n, -1),
    "本月": lambda n: _month_span(n.year, n.month),
    "这个月": lambda n: _month_span(n.year, n.month),
    "上个月": lambda n: _month_span(*_shift_month(n.year, n.month, -1)),
    "上月": lambda n: _month_span(*_shift_month(n.year, n.month, -1)),
    "下个月": lambda n: _month_span(*_shift_month(n.year, n.month, 1)),
    "今年": lambda n: (_day(n.year, 1, 1), _day(n.year + 1, 1, 1)),
    "去年": lambda n: (_day(n.year - 1, 1, 1), _day(n.year, 1, 1)),
    "前年": lambda n: (_day(n.year - 2, 1, 1), _day(n.year - 1, 1, 1)),
    "明年": lambda n: (_day(n.year + 1, 1, 1), _day(n.year + 2, 1, 1)),
}
_RELATIVE_WORD_RE = "|".join(sorted(map(re.escape, _RELATIVE_WORDS), key=len, reverse=True))


def _relative_word(match: re.Match[str], now: datetime) -> TimeExpression | None:
    start, end = _RELATIVE_WORDS[match.group(0).lower()](now)
    return TimeExpression(match.group(0), start, end, priority=RELATIVE)


def _en_ago(match: re.Match[str], now: datetime) -> TimeExpression | None:
    count, unit = _en_number(match.group("n")), match.group("unit").lower()
    return TimeExpression(match.group(0), *_ago(now, count, unit), priority=RELATIVE)


def _zh_ago(match: re.Match[str], now: datetime) -> TimeExpression | None:
    unit = {"天": "day", "周": "week", "星期": "week", "个星期": "week", "个月": "month"}
    unit.update({"年": "year", "个礼拜": "week"})
    count = _zh_number(match.group("n"))
    return TimeExpression(match.group(0), *_ago(now, count, unit[match.group("unit")]))


_I = re.IGNORECASE
_PATTERNS: tuple[tuple[re.Pattern[str], Finder], ...] = (
    (re.compile(r"\b(?P<year>\d{4})-(?P<mnum>\d{1,2})-(?P<day>\d{1,2})\b"), _absolute_day),
    (
        re.compile(
            rf"\b(?P<mname>{_MONTH})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})\b",
            _I,
        ),
        _absolute_day,
    ),
    (
        re.compile(
            rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mname>{_MONTH})\.?,?\s+(?P<year>\d{{4}})\b",
            _I,
        ),
        _absolute_day,
    ),
    (
        re.compile(r"(?P<year>\d{4})\s*年\s*(?P<mnum>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*[日号]"),
        _absolute_day,
    ),
    (
        re.compile(rf"\b(?P<mname>{_MONTH})\.?,?\s+(?:of\s+)?(?P<year>\d{{4}})\b", _I),
        _absolute_month,
    ),
    (re.compile(r"(?P<year>\d{4})\s*年\s*(?P<mnum>\d{1,2})\s*月"), _absolute_month),
    (re.compile(r"(?P<year>\d{4})\s*年"), _absolute_year),
    (
        re.compile(r"\b(?:in|of|during|since|until|by)\s+(?P<year>(?:19|20)\d{2})\b", _I),
        _absolute_year,
    ),
    (re.compile(rf"(?P<m>{_ZH_NUMBER})\s*月\s*(?P<d>{_ZH_NUMBER})\s*[日号]"), _zh_month_day),
    (
        re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<mname>{_MONTH})\b", _I),
        _en_day_of_month,
    ),
    (
        re.compile(rf"\b(?P<mname>{_MONTH})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b(?!:)", _I),
        _en_day_of_month,
    ),
    (
        re.compile(rf"(?P<which>前年|去年|今年|明年)?\s*(?P<m>{_ZH_NUMBER})\s*月份?"),
        _zh_relative_month,
    ),
    (re.compile(rf"\b(?P<n>{_EN_NUMBER})\s+(?P<unit>day|week|month|year)s?\s+ago\b", _I), _en_ago),
    (
        re.compile(
            rf"(?P<n>{_ZH_NUMBER})\s*(?P<unit>天|周|个星期|星期|个礼拜|个月|年)(?:以?前|之前)"
        ),
        _zh_ago,
    ),
    # Latin letters must not touch an English word ("yesterdays"); Chinese has no spaces.
    (re.compile(rf"(?<![a-z])(?:{_RELATIVE_WORD_RE})(?![a-z])", _I), _relative_word),
    # A month name alone: capitalised ("June"), or after a preposition ("in may"), so the
    # verb "may" and "march" are not taken for months.
    (
        re.compile(rf"\b(?:in|during|since|until|by|early|late|mid)\s+(?P<mname>{_MONTH})\b", _I),
        _month_of_any_year,
    ),
    (
        re.compile(
            r"\b(?P<mname>January|February|March|April|June|July|August|September|October|November|December)\b"
        ),
        _month_of_any_year,
    ),
)


def _candidates(query: str, now: datetime) -> Iterator[TimeExpression]:
    for pattern, finder in _PATTERNS:
        for match in pattern.finditer(query):
            found = finder(match, now)
            if found is not None:
                yield found


def find_time_expression(query: str, now: datetime, zone: tzinfo = UTC) -> TimeExpression | None:
    """The most specific time expression in ``query``, or None; its days are those of
    ``zone`` (the person's time zone)."""
    wall = now.astimezone(zone).replace(tzinfo=UTC)
    found = list(_candidates(query, wall))
    if not found:
        return None
    best = min(found, key=lambda e: (e.priority, -len(e.text)))
    return (
        best
        if zone is UTC
        else replace(best, start=_placed(best.start, zone), end=_placed(best.end, zone))
    )


def _placed(wall: datetime | None, zone: tzinfo) -> datetime | None:
    """A wall-clock bound (labelled UTC) as the instant it is in ``zone``."""
    return None if wall is None else wall.replace(tzinfo=zone).astimezone(UTC)
