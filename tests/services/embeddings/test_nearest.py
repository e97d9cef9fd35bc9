"""The nearest vectors: numpy's matrix product ranks exactly as the pure-Python dot
products do (clipped cosines, best first), and the fallback takes over without numpy."""

from __future__ import annotations

import math
import random

import pytest

from services.embeddings import nearest as nearest_module
from services.embeddings.nearest import nearest, relative_to_best, stacked
from services.embeddings.vectors import normalized


def test_numpy_and_pure_python_agree() -> None:
    rng = random.Random(30)
    vectors = [normalized([rng.uniform(-1, 1) for _ in range(16)]) for _ in range(200)]
    ids = list(range(1000, 1200))
    wanted = normalized([rng.uniform(-1, 1) for _ in range(16)])
    matrix = stacked(vectors)
    assert matrix is not None
    assert matrix.shape == (200, 16)
    fast = nearest(wanted, ids, vectors, matrix, 10)
    slow = nearest(wanted, ids, vectors, None, 10)
    assert [i for _, i in fast] == [i for _, i in slow]
    assert [s for s, _ in fast] == pytest.approx([s for s, _ in slow], abs=1e-6)
    assert all(0.0 <= s <= 1.0 for s, _ in fast)
    assert fast[0][0] >= fast[-1][0]


def test_mixed_lengths_or_no_numpy_fall_back(monkeypatch: pytest.MonkeyPatch) -> None:
    short, long = normalized([1.0, 0.0]), normalized([1.0, 0.0, 0.0])
    assert stacked([short, long]) is None
    ((score, memory_id),) = nearest(short, [1, 2], [short, long], None, 5)
    assert memory_id == 1
    assert score == pytest.approx(1.0)
    monkeypatch.setattr(nearest_module, "_np", None)
    assert stacked([short]) is None


def test_the_semantic_value_is_relative_to_the_best_match() -> None:
    scored = [(0.45, 1), (0.40, 2), (0.05, 3), (0.0, 4)]
    values = relative_to_best(scored, 0.05)
    assert values[1] == 1.0
    assert values[2] == pytest.approx(math.exp(-1))
    assert values[3] == pytest.approx(math.exp(-8))
    assert 4 not in values  # not similar at all: no semantic evidence
    assert relative_to_best(scored, 0.0) == {1: 0.45, 2: 0.40, 3: 0.05}
    assert relative_to_best([(0.0, 9)], 0.05) == {}
    assert relative_to_best(scored, 0.05, floor=0.1) == {1: 1.0, 2: pytest.approx(math.exp(-1))}
