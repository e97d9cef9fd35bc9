"""Thread-safe English stemming shared by the tokenizer, topic extractor and emotion analyzer."""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Any

import snowballstemmer  # type: ignore[import-untyped, unused-ignore]

# snowballstemmer stemmer objects keep per-call state (current string, cursor), so one instance
# must not be used by two threads at once: give every thread its own.
_local = threading.local()


def _stemmer() -> Any:
    stemmer = getattr(_local, "stemmer", None)
    if stemmer is None:
        stemmer = snowballstemmer.stemmer("english")
        _local.stemmer = stemmer
    return stemmer


@lru_cache(maxsize=65536)
def stem_word(word: str) -> str:
    """Snowball (Porter2) English stem of a lowercase word: "running" -> "run",
    "memories" -> "memori", "cats" -> "cat". Digits and non-English words pass unchanged."""
    stemmed: str = _stemmer().stemWord(word)
    return stemmed
