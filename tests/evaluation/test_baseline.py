"""The naive BM25 baseline on a corpus small enough to score by hand."""

from __future__ import annotations

import math

import pytest

from evals.baseline import NaiveBM25, naive_tokens

# Lengths 2, 3, 4 (avgdl 3); apple, banana and cherry in two documents each, date in one.
CORPUS = ["apple banana", "apple apple cherry", "banana cherry cherry date"]
IDF_COMMON = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))  # ln 1.6
IDF_DATE = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))  # ln 8/3


def test_naive_tokens_do_not_stem_or_drop_stopwords() -> None:
    assert naive_tokens("Don't STOP_me now, 2023! Running the café") == [
        *("don", "t", "stop", "me", "now", "2023", "running", "the", "café"),
    ]
    assert naive_tokens("…!") == []


def test_scores_match_the_formula() -> None:
    index = NaiveBM25(CORPUS)
    assert index.avgdl == 3
    # doc 0: tf 1, |d| 2 → 1 · 2.2 / (1 + 1.2 · (0.25 + 0.75 · 2/3)) = 2.2 / 1.9
    # doc 1: tf 2, |d| 3 → 2 · 2.2 / (2 + 1.2) = 1.375
    assert index.scores("apple") == {
        0: pytest.approx(IDF_COMMON * 2.2 / 1.9),
        1: pytest.approx(IDF_COMMON * 1.375),
    }
    # doc 2: date tf 1, |d| 4 → 2.2 / (1 + 1.2 · 1.25) = 0.88
    scores = index.scores("Date, APPLE!")
    assert scores[2] == pytest.approx(IDF_DATE * 0.88)
    assert index.rank("Date, APPLE!", 10) == [2, 1, 0]
    assert index.rank("apple", 1) == [1]


def test_repeated_query_words_count_again() -> None:
    index = NaiveBM25(CORPUS)
    assert index.scores("apple apple")[0] == pytest.approx(2 * index.scores("apple")[0])


def test_unmatched_documents_are_not_ranked_and_ties_keep_document_order() -> None:
    index = NaiveBM25(["x y", "y x", "z"])
    assert index.rank("x", 10) == [0, 1]
    assert index.rank("nothing here", 10) == []
    assert NaiveBM25([]).rank("x", 5) == []
