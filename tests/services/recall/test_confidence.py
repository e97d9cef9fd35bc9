"""Confidence from evidence: a similarity alone is evidence only from SEMANTIC_FLOOR, it
weighs only above unrelated text's, and each way of serving recall has its own fit."""

from __future__ import annotations

import pytest

from services.recall.confidence import OFFLINE, WITH_SEMANTIC, confidence, logistic
from services.recall.evidence import (
    SEMANTIC_FLOOR,
    SEMANTIC_FLOOR_ACROSS,
    SEMANTIC_UNRELATED,
    Evidence,
    QueryWeights,
)

QUERY = QueryWeights({"lena": 1.0})


def test_a_similarity_alone_is_evidence_only_from_the_floor() -> None:
    below = Evidence(QUERY, semantic=SEMANTIC_FLOOR - 0.01)
    at = Evidence(QUERY, semantic=SEMANTIC_FLOOR)
    assert not below.own
    assert not below.semantic_alone
    assert at.own
    assert at.semantic_alone
    assert not Evidence(QUERY, terms=("lena",), semantic=0.6).semantic_alone


def test_in_the_other_language_a_similarity_is_evidence_from_a_lower_floor() -> None:
    assert SEMANTIC_FLOOR_ACROSS < SEMANTIC_FLOOR
    between = (SEMANTIC_FLOOR_ACROSS + SEMANTIC_FLOOR) / 2
    assert not Evidence(QUERY, semantic=between).own
    across = Evidence(QUERY, semantic=between, across=True)
    assert across.own
    assert across.semantic_alone
    assert not Evidence(QUERY, semantic=SEMANTIC_FLOOR_ACROSS - 0.01, across=True).own
    assert across.as_dict()["query_dependent"]["other_language"] is True  # type: ignore[index]


def test_a_similarity_alone_in_the_other_language_is_surer_than_in_the_same() -> None:
    # Of such hits from cosine 0.3, 36 in 40 answered (services/recall/evidence.py); in the
    # query's own language a similarity alone is weaker evidence (it had a word to match).
    same = confidence(Evidence(QUERY, semantic=0.4), False, True)
    across = confidence(Evidence(QUERY, semantic=0.4, across=True), False, True)
    assert across > same
    assert across > 0.7
    # Offline there is no similarity: the feature weighs nothing.
    assert confidence(Evidence(QUERY, semantic=0.4, across=True), False) == confidence(
        Evidence(QUERY, semantic=0.4), False
    )


def test_without_a_source_the_offline_fit_applies_and_ignores_similarity() -> None:
    lexical = Evidence(QUERY, terms=("lena",), relevance=1.0)
    expected = logistic(OFFLINE.intercept + OFFLINE.coefficients[0] + OFFLINE.coefficients[1])
    assert confidence(lexical, time_only=False) == pytest.approx(expected)
    assert confidence(lexical, time_only=False, semantic=True) != pytest.approx(expected)


def test_a_similarity_weighs_only_above_unrelated_texts() -> None:
    lexical = Evidence(QUERY, terms=("lena",), relevance=1.0)
    unrelated = Evidence(QUERY, terms=("lena",), relevance=1.0, semantic=SEMANTIC_UNRELATED)
    similar = Evidence(QUERY, terms=("lena",), relevance=1.0, semantic=0.5)
    assert confidence(unrelated, False, True) == confidence(lexical, False, True)
    assert confidence(similar, False, True) > confidence(lexical, False, True)
    # A similarity alone: about even at 0.4 (0.51), nearly sure at 0.6 (0.93).
    assert 0.4 < confidence(Evidence(QUERY, semantic=0.4), False, True) < 0.6
    assert confidence(Evidence(QUERY, semantic=0.6), False, True) > 0.9
    assert len(WITH_SEMANTIC.coefficients) == len(OFFLINE.coefficients)
