"""The confidence fit: no feature may count against a hit."""

from __future__ import annotations

from evals.confidence_fit import Row, _fit, fit
from services.recall.confidence import FEATURES


def rows() -> list[Row]:
    """Hits that answer when they hold the first feature, and less often when they also
    hold the second: an unconstrained fit weighs the second below 0."""
    found = []
    for i in range(400):
        a, b = float(i % 2), float((i // 2) % 2)
        answers = a == 1.0 and (b == 0.0 or i % 8 == 3)
        x = (a, b) + (0.0,) * (len(FEATURES) - 2)
        found.append(Row(x, answers, "scenarios"))
    return found


def test_a_negative_coefficient_is_held_at_zero_and_the_rest_refitted() -> None:
    free = _fit(rows(), penalty=1.0, steps=30, fixed=set())
    assert free[2] < 0  # [intercept, first feature, second feature, ...]
    beta = fit(rows())
    assert beta[2] == 0.0
    assert beta[1] > 0
    assert all(b >= 0 for b in beta[1:])
