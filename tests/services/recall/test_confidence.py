"""Confidence from evidence: a similarity alone is evidence only from SEMANTIC_FLOOR (or
its standing in the store), it weighs only above unrelated text's, and each way of
serving recall has its own fit."""

from __future__ import annotations

import pytest

from services.core.settings import Settings
from services.recall.confidence import FEATURES, OFFLINE, WITH_SEMANTIC, confidence, logistic
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
    # In the query's own language a similarity alone is weaker evidence (it had a word to
    # match); in the other language it is all the evidence there can be.
    assert WITH_SEMANTIC.coefficients[FEATURES.index("semantic_across")] > 0
    for cosine in (0.35, 0.4, 0.5, 0.7):
        same = confidence(Evidence(QUERY, semantic=cosine), False, True)
        across = confidence(Evidence(QUERY, semantic=cosine, across=True), False, True)
        assert across > same, cosine
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
    # A similarity alone: the higher the cosine, the surer.
    alone = [
        confidence(Evidence(QUERY, semantic=c), False, True) for c in (0.35, 0.4, 0.5, 0.6, 0.8)
    ]
    assert alone == sorted(alone)
    assert len(set(alone)) == len(alone)
    assert len(WITH_SEMANTIC.coefficients) == len(OFFLINE.coefficients)


def test_a_similarity_that_stands_out_in_the_store_is_surer() -> None:
    # Standing counts only beyond one deviation above the store's mean, and more of it
    # is surer: far enough out, a similarity alone passes the default floor.
    floor = Settings.model_fields["recall_min_confidence"].default
    standing_floor = Settings.model_fields["recall_semantic_standing"].default
    assert WITH_SEMANTIC.coefficients[FEATURES.index("standing")] > 0

    def alone(standing: float | None, standing_floor: float = standing_floor) -> float:
        evidence = Evidence(QUERY, semantic=0.5, standing=standing, standing_floor=standing_floor)
        assert evidence.semantic_alone
        return confidence(evidence, False, True)

    # With the absolute floors deciding (standing floor 0), a standing up to one deviation
    # weighs nothing.
    assert alone(None, 0.0) == alone(0.5, 0.0) == alone(1.0, 0.0)
    surer = [alone(s) for s in (standing_floor, 2.5, 4.0, 6.0)]
    assert surer == sorted(surer)
    assert len(set(surer)) == len(surer)
    assert surer[0] < floor <= surer[-1]
    # Below the standing floor a similarity is no evidence, however high its cosine.
    assert not Evidence(QUERY, semantic=0.9, standing=1.0, standing_floor=standing_floor).own
    # Offline there is no standing either.
    assert confidence(Evidence(QUERY, semantic=0.5, standing=6.0), False) == confidence(
        Evidence(QUERY, semantic=0.5), False
    )
