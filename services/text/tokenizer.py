"""Text normalisation and retrieval tokenisation for mixed Chinese / English text.

Chinese has no spaces, so Han runs are segmented with jieba (search mode); Latin / digit runs
are split into words, stopword-filtered and Snowball-stemmed so "running" and "runs" meet.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from functools import lru_cache
from importlib import resources

from . import _jieba
from .stemming import stem_word

# CJK Unified Ideographs incl. Extension A, compatibility ideographs and the supplementary
# planes (Extensions B-G). Kana/Hangul are deliberately not Han: they are treated as "words".
HAN_RANGES = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"

# A run is either consecutive Han characters or consecutive non-Han letters/digits. Everything
# else (spaces, punctuation, apostrophes, symbols, "_") separates runs.
_RUN_RE = re.compile(rf"(?P<han>[{HAN_RANGES}]+)|(?P<word>[^\W_{HAN_RANGES}]+)")
_HAN_RUN_RE = re.compile(rf"[{HAN_RANGES}]+")

_DATA_PACKAGE = __package__ or "services.text"


def normalize_content(text: str) -> str:
    """Canonical form of ``text`` for duplicate detection.

    NFKC (full-width -> ASCII), lowercase, punctuation of every script removed (Unicode
    category P*: ``,.!?`` as well as ``，。！？、；：“”‘’（）【】《》…``), whitespace runs
    collapsed to one space and the ends stripped. Punctuation is deleted rather than replaced by
    a space because Chinese puts no space after it: "你好，世界" == "你好世界".
    """
    folded = unicodedata.normalize("NFKC", text).lower()
    kept = "".join(ch for ch in folded if not unicodedata.category(ch).startswith("P"))
    return " ".join(kept.split())


def content_hash(text: str) -> str:
    """SHA-256 hex digest of :func:`normalize_content` (UTF-8), used as a dedup key."""
    return hashlib.sha256(normalize_content(text).encode("utf-8")).hexdigest()


def load_stopwords(filename: str) -> frozenset[str]:
    """Read a bundled stopword file from ``services/text/data`` (one word per line, ``#``
    comments and blank lines ignored). Uses importlib.resources so it works when installed."""
    data = resources.files(_DATA_PACKAGE) / "data" / filename
    words = (line.strip() for line in data.read_text(encoding="utf-8").splitlines())
    return frozenset(w for w in words if w and not w.startswith("#"))


class Tokenizer:
    """Retrieval tokenizer for Chinese, English and mixed text.

    Build once and share: after construction it only reads immutable state (and jieba's
    dictionary, which is read-only once loaded), so concurrent ``tokenize`` calls are safe.

    English handling: words are split on every non-alphanumeric character, apostrophes
    included ("don't" -> "don" + "t", "John's" -> "john" + "s"); the contraction fragments are
    in the English stopword list, so they disappear. Remaining words are stemmed with Snowball
    English: "running"/"runs" -> "run", "memories" -> "memori". Numbers stay ("2024").
    """

    def __init__(
        self,
        stopwords_zh: frozenset[str] | None = None,
        stopwords_en: frozenset[str] | None = None,
    ) -> None:
        self._stop_zh = load_stopwords("stopwords_zh.txt") if stopwords_zh is None else stopwords_zh
        # Lowercased because English words are compared after lowercasing.
        self._stop_en = frozenset(
            w.lower()
            for w in (load_stopwords("stopwords_en.txt") if stopwords_en is None else stopwords_en)
        )

    @property
    def stopwords_zh(self) -> frozenset[str]:
        """Chinese stopwords dropped from jieba output."""
        return self._stop_zh

    @property
    def stopwords_en(self) -> frozenset[str]:
        """English stopwords (lowercase) dropped before stemming."""
        return self._stop_en

    def warm(self) -> None:
        """Load jieba's dictionary now (and silence its logging) so the first request is fast."""
        _jieba.initialize()

    def tokenize(self, text: str) -> list[str]:
        """Retrieval tokens of ``text`` in order, duplicates kept (term frequency matters).

        Han runs go through ``jieba.cut_for_search`` (so "项目经理" yields "项目", "经理" and
        "项目经理"); Chinese stopwords are dropped but other single characters (急, 猫) are
        kept. Latin/digit runs are lowercased words, English stopwords removed, then stemmed.
        """
        tokens: list[str] = []
        folded = unicodedata.normalize("NFKC", text).lower()
        for match in _RUN_RE.finditer(folded):
            han = match.group("han")
            if han is not None:
                tokens.extend(self._han_tokens(han))
                continue
            word = match.group("word")
            if word not in self._stop_en:
                tokens.append(stem_word(word))
        return tokens

    def english_word(self, word: str) -> str | None:
        """The token a single Latin word becomes (lowercased + stemmed), or None for a
        stopword. Lets other components (topics) stem exactly like the tokenizer."""
        lowered = word.lower()
        if lowered in self._stop_en:
            return None
        return stem_word(lowered)

    def cjk_ngrams(self, text: str, n: int = 2) -> list[str]:
        """Character n-grams of every Han run, in order with duplicates.

        A fallback for matching when jieba segments the same words differently in two texts:
        ``cjk_ngrams("项目经理") == ["项目", "目经", "经理"]``. Non-Han characters break runs
        and a run shorter than ``n`` yields nothing.
        """
        if n < 1:
            raise ValueError("n must be >= 1")
        grams: list[str] = []
        folded = unicodedata.normalize("NFKC", text)
        for match in _HAN_RUN_RE.finditer(folded):
            run = match.group()
            grams.extend(run[i : i + n] for i in range(len(run) - n + 1))
        return grams

    def _han_tokens(self, run: str) -> list[str]:
        tokens: list[str] = []
        for token in _jieba.cut_for_search(run):
            token = token.strip()
            if token and token not in self._stop_zh:
                tokens.append(token)
        return tokens


@lru_cache(maxsize=1)
def get_tokenizer() -> Tokenizer:
    """The process-wide shared :class:`Tokenizer` (stopword files are read once)."""
    return Tokenizer()
