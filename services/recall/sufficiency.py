"""Is private memory enough to answer? (seed 001 §1.2 ``evaluateKnowledgeSufficiency``)

    sufficient = results ≥ SUFFICIENT_MIN_RESULTS (3)
                 and coverage ≥ SUFFICIENT_MIN_COVERAGE (0.8)
                 and mean confidence ≥ SUFFICIENT_MIN_CONFIDENCE (0.75)

``coverage`` is the share of the query's aspects the results cover together, each aspect
weighing the same: its content terms (covered in proportion to the idf-weighted term
weight held by at least one result, services/recall/evidence.py), its time expression
(covered when a result was said within a half-life of it) and its urgency or feeling
(covered when a result carries it). "What did Tom and I plan for August?" is covered
0.5 by results that mention Tom but nothing of August. An empty query asks for nothing:
coverage 1 and sufficient never (a frontend that sends none has no question to answer).
When the answer is not sufficient, the frontend should look elsewhere too (the public
knowledge of seed 001 §1.2) or say what it does not know.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from services.core.settings import Settings
from services.recall.evidence import TIME_FLOOR, Evidence


@dataclass(frozen=True)
class Sufficiency:
    """Seed 001 §1.2's verdict and the numbers it rests on."""

    sufficient: bool
    coverage: float
    confidence: float  # the results' mean confidence (0 without results)
    results: int


def coverage(evidence: Sequence[Evidence]) -> float:
    """The share of the query's aspects (terms, time, feeling) the results cover."""
    if not evidence:
        return 0.0
    query = evidence[0].query
    parts: list[float] = []
    if query.total > 0:
        held = {t for e in evidence for t in e.terms}
        parts.append(min(1.0, sum(query.terms.get(t, 0.0) for t in held) / query.total))
    if query.has_time:
        parts.append(1.0 if any(e.time >= TIME_FLOOR for e in evidence) else 0.0)
    if query.has_feeling:
        parts.append(1.0 if any(e.feeling > 0 for e in evidence) else 0.0)
    return sum(parts) / len(parts) if parts else 0.0


def sufficiency(
    evidence: Sequence[Evidence | None],
    confidences: Sequence[float | None],
    settings: Settings,
    *,
    asked: bool,
) -> Sufficiency:
    """The verdict for one recall's results (their evidence and confidences, in order)."""
    if not asked:
        return Sufficiency(False, 1.0, 0.0, len(evidence))
    known = [e for e in evidence if e is not None]
    values = [c for c in confidences if c is not None]
    mean = sum(values) / len(values) if values else 0.0
    covered = coverage(known)
    enough = (
        len(evidence) >= settings.sufficient_min_results
        and covered >= settings.sufficient_min_coverage
        and mean >= settings.sufficient_min_confidence
    )
    return Sufficiency(enough, covered, mean, len(evidence))
