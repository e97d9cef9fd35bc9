"""Dataset parsing: session dates, evidence id repair, turn contents."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from evals.locomo import (
    normalize_dia_id,
    normalize_evidence,
    parse_conversation,
    parse_session_datetime,
    turn_content,
)
from tests.evaluation.synthetic import SAMPLE


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("1:56 pm on 8 May, 2023", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("12:48 am on 1 February, 2023", datetime(2023, 2, 1, 0, 48, tzinfo=UTC)),
        ("12:05 pm on 3 June, 2023", datetime(2023, 6, 3, 12, 5, tzinfo=UTC)),
        ("11:01 am on 17 December, 2022", datetime(2022, 12, 17, 11, 1, tzinfo=UTC)),
        ("9:27 AM on 7 february 2022", datetime(2022, 2, 7, 9, 27, tzinfo=UTC)),
    ],
)
def test_session_dates_are_utc(raw: str, expected: datetime) -> None:
    parsed = parse_session_datetime(raw)
    assert parsed == expected
    assert parsed.utcoffset() is not None


@pytest.mark.parametrize("raw", ["", "yesterday", "1:56 pm on 8 Maytember, 2023", "8 May 2023"])
def test_unparseable_dates_are_rejected(raw: str) -> None:
    with pytest.raises(ValueError, match="unrecognised LoCoMo session date"):
        parse_session_datetime(raw)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("D1:3", "D1:3"),
        (" D1:3 ", "D1:3"),
        ("D:11:26", "D11:26"),
        ("D30:05", "D30:5"),
        ("D07:010", "D7:10"),
        ("D", None),
        ("D1", None),
        ("8:6", None),
        ("D8:6; D9:17", None),
    ],
)
def test_normalize_dia_id(raw: str, expected: str | None) -> None:
    assert normalize_dia_id(raw) == expected


KNOWN = frozenset({"D1:1", "D8:6", "D9:17", "D11:26", "D30:5"})


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["D8:6; D9:17"], ["D8:6", "D9:17"]),  # two ids in one string
        (["D8:6;D9:17"], ["D8:6", "D9:17"]),
        (["D8:6 D9:17"], ["D8:6", "D9:17"]),  # space-joined list
        (["D8:6  D9:17 D1:1"], ["D8:6", "D9:17", "D1:1"]),
        (["D:11:26"], ["D11:26"]),  # stray colon
        (["D30:05"], ["D30:5"]),  # leading zero
        (["D", "D1:1"], ["D1:1"]),  # no id at all
        (["D10:19", "D1:1"], ["D1:1"]),  # names no turn of this conversation
        (["D1:1", "D1:01", "D1:1"], ["D1:1"]),  # repeats collapse
        (["D10:19"], []),
        ([], []),
    ],
)
def test_normalize_evidence(raw: list[str], expected: list[str]) -> None:
    assert normalize_evidence(raw, KNOWN) == expected


def test_turn_content_adds_the_image_caption() -> None:
    assert turn_content({"speaker": "Ann", "text": "Hi!"}) == "Ann: Hi!"
    assert turn_content({"speaker": "Ann", "text": "Hi!", "blip_caption": ""}) == "Ann: Hi!"
    turn = {"speaker": "Ann", "text": "Look.", "blip_caption": "a photo of a cat"}
    assert turn_content(turn) == "Ann: Look. [image: a photo of a cat]"


def test_parse_conversation() -> None:
    conversation = parse_conversation(SAMPLE)
    assert conversation.sample_id == "conv-t1"
    assert [t.dia_id for t in conversation.turns] == [
        *("D1:1", "D1:2", "D1:3", "D1:4"),
        *("D2:1", "D2:2", "D2:3", "D2:4"),
    ]
    violin = conversation.turns[3]
    assert violin.content == (
        "Bob: I started learning the violin. [image: a photo of a violin on a wooden table]"
    )
    assert (violin.session, violin.created_at) == (1, datetime(2023, 3, 1, 10, 5, tzinfo=UTC))
    assert conversation.turns[4].created_at == datetime(2023, 4, 12, 16, 30, tzinfo=UTC)
    assert [(q.category, q.evidence) for q in conversation.questions] == [
        (1, ("D2:4", "D1:4")),
        (4, ("D2:3",)),
        (2, ("D2:1", "D1:3")),
    ]
    # "D" leaves the adversarial question without evidence; the open-domain one has none.
    assert conversation.skipped_questions == 2
    # "D9:9" and "D" named no turn.
    assert conversation.dropped_evidence_ids == 2


def test_sessions_are_read_in_numeric_order() -> None:
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "session_10_date_time": "1:00 pm on 10 May, 2023",
            "session_10": [{"speaker": "A", "dia_id": "D10:1", "text": "ten"}],
            "session_2_date_time": "1:00 pm on 2 May, 2023",
            "session_2": [{"speaker": "A", "dia_id": "D2:1", "text": "two"}],
            "session_3": [{"speaker": "A", "dia_id": "D3:1", "text": "undated"}],
        },
        "qa": [],
    }
    conversation = parse_conversation(sample)
    assert [(t.session, t.dia_id) for t in conversation.turns] == [
        (2, "D2:1"),
        (3, "D3:1"),
        (10, "D10:1"),
    ]
    assert conversation.turns[1].created_at is None
