"""Query types by the documented rules (seed 004 §4.3 plus temporal and personal)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from services.recall.ranking.query_types import QueryType, classify
from services.recall.ranking.time_expressions import find_time_expression


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("When did Caroline go to the support group?", QueryType.TEMPORAL),
        ("季度报告什么时候交", QueryType.TEMPORAL),
        ("上周我说了什么", QueryType.TEMPORAL),
        ("What did Maria do in May 2023?", QueryType.TEMPORAL),
        ("my build fails with an error", QueryType.DIAGNOSTIC),
        ("服务器又报错了", QueryType.DIAGNOSTIC),
        ("how do I install the printer", QueryType.PROCEDURAL),
        ("怎么做红烧肉", QueryType.PROCEDURAL),
        ("the SQL query for the report", QueryType.TECHNICAL),
        ("那个数据库的密码", QueryType.TECHNICAL),
        ("ideas for the logo", QueryType.CREATIVE),
        ("婚礼的设计方案", QueryType.CREATIVE),
        ("what is a Roth IRA", QueryType.CONCEPTUAL),
        ("为什么天空是蓝的", QueryType.CONCEPTUAL),
        ("where does my sister live", QueryType.PERSONAL),
        ("What did Caroline research?", QueryType.PERSONAL),
        ("我妈妈喜欢什么花", QueryType.PERSONAL),
        ("continue from that", QueryType.CONVERSATIONAL),
        ("刚才那个", QueryType.CONVERSATIONAL),
        ("green tea", QueryType.DEFAULT),
        ("项目经理", QueryType.DEFAULT),
    ],
)
def test_rules(query: str, expected: QueryType) -> None:
    now = datetime(2026, 1, 14, tzinfo=UTC)
    intent = classify(query, find_time_expression(query, now))
    assert intent.type is expected
    assert (intent.cue is None) == (expected is QueryType.DEFAULT)


def test_the_first_rule_wins() -> None:
    # "my" is personal, but a crash is diagnostic first.
    assert classify("my code crashes").type is QueryType.DIAGNOSTIC
    assert classify("when did my code crash").cue == "when"
