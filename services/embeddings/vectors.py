"""Vectors as float32 bytes and cosine similarity, in pure Python (no numpy needed).

Vectors are L2-normalised before they are stored, so cosine is a dot product. Bytes are
little-endian whatever the machine, so a database moves between hosts unchanged.
"""

from __future__ import annotations

import math
import operator
import sys
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeAlias

# typecode "f" (float32); array is generic for the type checker only before Python 3.12.
if TYPE_CHECKING:
    Vector: TypeAlias = array[float]
else:
    Vector = array


def normalized(values: Sequence[float]) -> Vector:
    """``values / ‖values‖`` as float32; a zero vector stays zero (similar to nothing)."""
    norm = math.sqrt(math.fsum(v * v for v in values))
    scale = 1.0 / norm if norm > 0 else 0.0
    return array("f", (v * scale for v in values))


def to_bytes(vector: Vector) -> bytes:
    """Little-endian float32 bytes."""
    if sys.byteorder == "little":
        return vector.tobytes()
    swapped = array("f", vector)
    swapped.byteswap()
    return swapped.tobytes()


def from_bytes(data: bytes) -> Vector:
    """The vector stored by :func:`to_bytes`."""
    vector = array("f")
    vector.frombytes(data)
    if sys.byteorder != "little":
        vector.byteswap()
    return vector


def dot(a: Vector, b: Vector) -> float:
    """Σ a·b: the cosine of two normalised vectors."""
    return float(sum(map(operator.mul, a, b)))


def similarity(a: Vector, b: Vector) -> float:
    """Cosine clipped to [0, 1]: opposite and unrelated texts both count as not similar."""
    return min(1.0, max(0.0, dot(a, b)))
