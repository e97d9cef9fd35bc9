"""Slot extraction (Chinese and English) and the order rule, without a database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from services.remembering.facts.resolve import SlotFact, supersessions
from services.remembering.facts.slots import Fact, extract_fact

T0 = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("content", "slot", "value"),
    [
        ("我住在北京", "residence", "北京"),
        ("我搬到上海了", "residence", "上海"),
        ("我已经搬家到深圳了！", "residence", "深圳"),
        ("对了，我现在住杭州", "residence", "杭州"),
        ("我的经理是王芳", "manager", "王芳"),
        ("我换了新经理", "manager", ""),
        ("我在腾讯工作", "employer", "腾讯"),
        ("我跳槽到了字节跳动", "employer", "字节跳动"),
        ("我今年三十岁", "age", "三十"),
        ("我叫小明", "name", "小明"),
        ("我的手机号是13800000000", "phone", "13800000000"),
        ("我的新邮箱是 a@b.cn", "email", "a@b.cn"),
        ("我女朋友叫小红", "partner", "小红"),
        ("我最喜欢的水果是芒果", "favorite:水果", "芒果"),
        ("我家的狗叫旺财", "pet:dog", "旺财"),
        ("我的生日是5月3日", "生日", "5月3日"),
        ("I live in Beijing", "residence", "beijing"),
        ("I moved to Shanghai last week.", "residence", "shanghai"),
        ("I've just moved to Berlin", "residence", "berlin"),
        ("Yeah, I live in Paris now", "residence", "paris"),
        ("My manager is Ann", "manager", "ann"),
        ("My new manager is Bo", "manager", "bo"),
        ("I have a new manager", "manager", ""),
        ("I work at Google", "employer", "google"),
        ("I now work at Meta and love it", "employer", "meta"),
        ("I work as a nurse", "job", "nurse"),
        ("I'm 30", "age", "30"),
        ("My name is Mel.", "name", "mel"),
        ("My email is a@b.com.", "email", "a@b.com"),
        ("My favorite food is sushi", "favorite:food", "sushi"),
        ("my dog's name is Max", "pet:dog", "max"),
        ("My dentist is now Dr. Li", "dentist", "dr li"),
        # How a value is cleaned: cut at a conjunction, punctuation to spaces, trailing
        # dots stripped, a leading article dropped.
        ("我住在北京但是想搬家", "residence", "北京"),
        ("My name is Ann (Annie)", "name", "ann annie"),
        ("I live in Paris...", "residence", "paris"),
        ("I moved to the Netherlands", "residence", "netherlands"),
        # A two-word key keeps its one space.
        ("My favorite ice cream is mango", "favorite:ice cream", "mango"),
        ("My home town is Lyon", "home town", "lyon"),
        # An opinion word in a favourite's key is the key, not an opinion.
        ("My favorite day is Sunday", "favorite:day", "sunday"),
    ],
)
def test_statements_that_set_a_slot(content: str, slot: str, value: str) -> None:
    assert extract_fact(content) == Fact(slot, value)


@pytest.mark.parametrize(
    "content",
    [
        "我不住在北京",  # negation
        "如果我搬到上海就好了",  # conditional
        "我住院了",  # 住 is not 住在
        "我在找工作",
        "我叫了外卖",
        "我的意思是不要",  # an opinion, not an attribute
        "我的想法是去北京",  # an opinion, however well-formed its value
        "My biggest worry is money",  # an opinion word inside a two-word key
        "I: I live in Paris",  # "I" is no speaker's name: no "residence@i"
        "My family is awesome - me, the missus and the kids",
        "我的工作很忙",  # a state
        "你住在哪里？",
        "我妈妈住在南京",  # someone else's residence
        "I don't live in Paris",
        "If I moved to Paris, I'd be happy",
        "Do I live in Paris?",
        "Where do I live?",
        "My point is that it's fine",
        "My sister is so happy",
        "I'm tired",
        "Note that I live in Paris",
        "下周五要交季度报告，很急",
        "",
    ],
)
def test_statements_that_set_none(content: str) -> None:
    assert extract_fact(content) is None


def test_a_transcript_line_scopes_the_slot_to_its_speaker() -> None:
    assert extract_fact("Caroline: I moved to Sweden 4 years ago") == Fact(
        "residence@caroline", "sweden"
    )
    assert extract_fact("小明：我搬到上海了") == Fact("residence@小明", "上海")
    assert extract_fact("Melanie: Hey! My name is Mel.") == Fact("name@melanie", "mel")


def test_the_first_matching_clause_decides() -> None:
    assert extract_fact("I moved to Lyon, and my manager is Ann") == Fact("residence", "lyon")


def _fact(memory_id: int, value: str, days: float = 0, slot: str = "residence") -> SlotFact:
    return SlotFact(memory_id, slot, value, T0 + timedelta(days=days))


def test_a_later_statement_supersedes_an_earlier_one() -> None:
    assert supersessions([_fact(1, "北京")], [_fact(2, "上海", 1)]) == {1: 2}


def test_the_same_value_supersedes_nothing() -> None:
    assert supersessions([_fact(1, "北京")], [_fact(2, "北京", 1)]) == {}


def test_other_slots_are_left_alone() -> None:
    assert supersessions([_fact(1, "ann", slot="manager")], [_fact(2, "上海", 1)]) == {}


def test_within_a_batch_the_last_statement_wins() -> None:
    incoming = [_fact(1, "a", 0), _fact(2, "b", 1), _fact(3, "c", 2)]
    assert supersessions([], incoming) == {1: 2, 2: 3}


def test_an_older_statement_arrives_superseded() -> None:
    # Importing history: what was said in the past does not replace today's fact.
    assert supersessions([_fact(5, "上海", 10)], [_fact(6, "北京", 1)]) == {6: 5}


def test_an_unreadable_value_always_differs() -> None:
    assert supersessions([_fact(1, "ann", slot="m")], [_fact(2, "", 1, slot="m")]) == {1: 2}
    assert supersessions([_fact(1, "", slot="m")], [_fact(2, "", 1, slot="m")]) == {1: 2}
