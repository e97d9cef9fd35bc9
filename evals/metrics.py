"""Recall@k per question, its aggregation per category, and latency percentiles."""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

CATEGORY_NAMES: dict[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
# Overall scores: every category, and the four answerable ones (5 = adversarial).
GROUPS: dict[str, tuple[int, ...]] = {"1-5": (1, 2, 3, 4, 5), "1-4": (1, 2, 3, 4)}


def recall_at_k(evidence: Collection[str], ranked: Sequence[Collection[str]], k: int) -> float:
    """|evidence ids found in the top k| / |evidence ids|.

    ``ranked`` holds, best first, the dialog ids each retrieved item stands for: one id for
    a plain turn, several for a memory that several identical turns merged into, so every
    evidence turn that merged into a retrieved memory counts as found.
    """
    if not evidence:
        raise ValueError("a question without evidence has no recall")
    found: set[str] = set()
    for ids in ranked[:k]:
        found.update(ids)
    return len(set(evidence) & found) / len(set(evidence))


@dataclass(frozen=True)
class QuestionScore:
    """One question's recall@k for every k."""

    category: int
    recall: Mapping[int, float]


def score_question(
    category: int, evidence: Collection[str], ranked: Sequence[Collection[str]], ks: Iterable[int]
) -> QuestionScore:
    """Recall@k of one ranked answer for every k."""
    return QuestionScore(category, {k: recall_at_k(evidence, ranked, k) for k in ks})


@dataclass(frozen=True)
class Cell:
    """Mean recall@k of ``count`` questions (None when there are none)."""

    count: int
    recall: dict[int, float | None]


def _mean_cell(scores: Sequence[QuestionScore], ks: Sequence[int]) -> Cell:
    if not scores:
        return Cell(0, dict.fromkeys(ks))
    return Cell(len(scores), {k: math.fsum(s.recall[k] for s in scores) / len(scores) for k in ks})


def aggregate(scores: Sequence[QuestionScore], ks: Sequence[int]) -> dict[str, Cell]:
    """Mean recall@k per category ("1".."5") and per group ("1-5", "1-4").

    Every mean is over questions (micro average): a group weighs each category by how many
    questions it has, so "1-5" is the plain mean of every evaluated question.
    """
    cells = {str(c): _mean_cell([s for s in scores if s.category == c], ks) for c in CATEGORY_NAMES}
    for name, members in GROUPS.items():
        cells[name] = _mean_cell([s for s in scores if s.category in members], ks)
    return cells


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0 ≤ q ≤ 100) with linear interpolation between order statistics.

    Position (n − 1) · q / 100 in the sorted values, as numpy's default ("linear") method.
    """
    if not values:
        raise ValueError("percentile of no values")
    if not 0 <= q <= 100:
        raise ValueError("q must be between 0 and 100")
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
