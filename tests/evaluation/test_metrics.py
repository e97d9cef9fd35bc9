"""Recall@k, its aggregation per category, and percentiles, against hand-computed numbers."""

from __future__ import annotations

import pytest

from evals.metrics import QuestionScore, aggregate, percentile, recall_at_k

RANKED = [{"D1:3"}, {"D1:1", "D2:3"}, {"D1:2"}]


@pytest.mark.parametrize(("k", "expected"), [(1, 0.0), (2, 0.5), (3, 1.0), (10, 1.0)])
def test_recall_at_k(k: int, expected: float) -> None:
    assert recall_at_k(["D1:1", "D1:2"], RANKED, k) == expected


def test_a_merged_memory_finds_every_turn_merged_into_it() -> None:
    assert recall_at_k(["D1:1", "D2:3"], RANKED, 2) == 1.0
    assert recall_at_k(["D2:3", "D1:2", "D9:1"], RANKED, 2) == pytest.approx(1 / 3)


def test_repeated_evidence_counts_once_and_empty_evidence_is_an_error() -> None:
    assert recall_at_k(["D1:2", "D1:2"], RANKED, 3) == 1.0
    assert recall_at_k(["D1:2"], [], 5) == 0.0
    with pytest.raises(ValueError, match="without evidence"):
        recall_at_k([], RANKED, 5)


def test_aggregate_averages_over_questions() -> None:
    scores = [
        QuestionScore(1, {1: 0.5, 5: 1.0}),
        QuestionScore(1, {1: 1.0, 5: 1.0}),
        QuestionScore(2, {1: 0.0, 5: 0.5}),
        QuestionScore(5, {1: 1.0, 5: 1.0}),
    ]
    cells = aggregate(scores, [1, 5])
    assert (cells["1"].count, cells["1"].recall) == (2, {1: 0.75, 5: 1.0})
    assert (cells["2"].count, cells["2"].recall) == (1, {1: 0.0, 5: 0.5})
    assert (cells["3"].count, cells["3"].recall) == (0, {1: None, 5: None})
    assert (cells["4"].count, cells["4"].recall) == (0, {1: None, 5: None})
    assert (cells["5"].count, cells["5"].recall) == (1, {1: 1.0, 5: 1.0})
    # 1-5: (0.5 + 1 + 0 + 1) / 4 and (1 + 1 + 0.5 + 1) / 4; 1-4 leaves category 5 out.
    assert cells["1-5"].count == 4
    assert cells["1-5"].recall == {1: 0.625, 5: 0.875}
    assert cells["1-4"].count == 3
    assert cells["1-4"].recall == {1: pytest.approx(0.5), 5: pytest.approx(2.5 / 3)}


@pytest.mark.parametrize(
    ("values", "q", "expected"),
    [
        ([4.0, 1.0, 3.0, 2.0], 50, 2.5),
        ([1.0, 2.0, 3.0, 4.0], 95, 3.85),  # position 3 · 0.95 = 2.85
        ([1.0, 2.0, 3.0, 4.0], 0, 1.0),
        ([1.0, 2.0, 3.0, 4.0], 100, 4.0),
        ([7.0], 95, 7.0),
        ([10.0, 20.0, 30.0], 50, 20.0),
    ],
)
def test_percentile(values: list[float], q: float, expected: float) -> None:
    assert percentile(values, q) == pytest.approx(expected)


def test_percentile_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="no values"):
        percentile([], 50)
    with pytest.raises(ValueError, match="between 0 and 100"):
        percentile([1.0], 101)
