"""Topic keywords of a memory via jieba's TF-IDF keyword extraction."""

from __future__ import annotations

import re
import unicodedata

from . import _jieba
from .tokenizer import HAN_RANGES, Tokenizer, get_tokenizer

_HAN_RE = re.compile(rf"[{HAN_RANGES}]")
_WORD_RE = re.compile(r"[^\W_]+")
# Pure numbers in any common notation: 2024, 3.14, 1,000, 50%, -2.
_NUMBER_RE = re.compile(r"[+\-]?[\d.,]*\d[\d.,]*%?")
# jieba ranks more candidates than we keep because stopwords/numbers are dropped afterwards.
_OVERFETCH = 3
_MIN_FETCH = 10


class TopicExtractor:
    """Extracts up to ``top_k`` topic keywords (TF-IDF, jieba's bundled IDF table).

    Topics are lowercased; Chinese/English stopwords, pure numbers and single characters are
    dropped; English words are stemmed like the :class:`Tokenizer` stems them, so "my cats" and
    "the cat" share the topic "cat". Non-word tokens such as "c++" are kept lowercased as-is.
    Stateless after construction and safe to share between threads.
    """

    def __init__(self, top_k: int = 5, tokenizer: Tokenizer | None = None) -> None:
        if top_k < 0:
            raise ValueError("top_k must be >= 0")
        self._top_k = top_k
        # Reuse the tokenizer's stopword lists and stemming so topics align with tokens.
        self._tokenizer = tokenizer if tokenizer is not None else get_tokenizer()

    @property
    def top_k(self) -> int:
        """Maximum number of topics returned."""
        return self._top_k

    def extract(self, text: str) -> list[str]:
        """At most ``top_k`` distinct topics of ``text`` in rank order; [] for blank text."""
        folded = unicodedata.normalize("NFKC", text)
        if self._top_k == 0 or not folded.strip():
            return []
        fetch = max(self._top_k * _OVERFETCH, _MIN_FETCH)
        topics: list[str] = []
        for candidate in _jieba.extract_tags(folded, fetch):
            topic = self._clean(candidate)
            if topic is not None and topic not in topics:
                topics.append(topic)
                if len(topics) == self._top_k:
                    break
        return topics

    def _clean(self, candidate: str) -> str | None:
        word = candidate.strip().lower()
        if len(word) < 2 or _NUMBER_RE.fullmatch(word):
            return None
        if word in self._tokenizer.stopwords_zh or word in self._tokenizer.stopwords_en:
            return None
        if _HAN_RE.search(word) or not _WORD_RE.fullmatch(word):
            return word
        topic = self._tokenizer.english_word(word)
        if topic is None or len(topic) < 2:
            return None
        return topic
