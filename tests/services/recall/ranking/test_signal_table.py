"""The fused score of a sparse signal table, and one candidate's row of it."""

from __future__ import annotations

import math

from services.recall.ranking.signals import fused_scores, signal_values


def test_each_key_sums_the_signals_it_has_with_their_weights() -> None:
    table = {
        "lexical": {1: 1.0, 2: 0.5, 3: 0.0},
        "importance": {1: 0.2, 2: 0.9, 3: 0.4},
        "continuity": {3: 0.7},  # a sparse source: only the neighbours have a value
    }
    weights = {"lexical": 0.6, "importance": 0.3, "continuity": 0.5}
    scores = fused_scores(table, weights, [1, 2, 3, 4])
    assert scores[1] == 0.6 * 1.0 + 0.3 * 0.2
    assert scores[2] == 0.6 * 0.5 + 0.3 * 0.9
    assert math.isclose(scores[3], 0.3 * 0.4 + 0.5 * 0.7)
    assert scores[4] == 0.0  # a key no signal speaks of


def test_a_row_holds_only_the_signals_with_a_value_for_that_key() -> None:
    table = {"lexical": {1: 1.0, 3: 0.0}, "continuity": {3: 0.7}}
    assert signal_values(table, 1) == {"lexical": 1.0}
    assert signal_values(table, 3) == {"lexical": 0.0, "continuity": 0.7}
    assert signal_values(table, 9) == {}
