"""Typed adapter around jieba, which ships without type information.

Every jieba call of the package goes through here so the rest stays ``mypy --strict`` clean and
jieba's logging / lazy-loading quirks are handled in one place.
"""

from __future__ import annotations

import logging
import threading
import warnings
from typing import Any

import jieba  # type: ignore[import-untyped, unused-ignore]

# jieba attaches its own stderr handler at DEBUG level and prints "Building prefix dict ..." the
# first time it is used; a service log must not get that noise.
logging.getLogger("jieba").setLevel(logging.WARNING)

_analyse_lock = threading.Lock()
_analyse_module: Any = None


def initialize() -> None:
    """Load jieba's prefix dictionary now instead of on the first segmentation call."""
    logging.getLogger("jieba").setLevel(logging.WARNING)
    jieba.initialize()


def cut_for_search(text: str) -> list[str]:
    """Segment ``text`` in search mode (long words also yield their sub-words), HMM on."""
    return [str(token) for token in jieba.cut_for_search(text, HMM=True)]


def _analyse() -> Any:
    """jieba.analyse, imported on first use under a lock.

    Lazy because importing it reads a multi-megabyte IDF table that only topic extraction
    needs. The warnings filter is touched once, under the lock, since catch_warnings mutates
    process-global state.
    """
    global _analyse_module
    with _analyse_lock:
        if _analyse_module is None:
            with warnings.catch_warnings():
                # jieba.analyse opens its IDF file without closing it (ResourceWarning).
                warnings.simplefilter("ignore", ResourceWarning)
                import jieba.analyse  # type: ignore[import-untyped, unused-ignore]
            _analyse_module = jieba.analyse
        return _analyse_module


def extract_tags(text: str, top_k: int) -> list[str]:
    """TF-IDF keywords of ``text`` using jieba's bundled IDF table, best first."""
    return [str(tag) for tag in _analyse().extract_tags(text, topK=top_k)]
