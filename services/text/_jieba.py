"""Typed adapter around jieba, which ships without type information.

Every jieba call of the package goes through here so the rest stays ``mypy --strict`` clean and
jieba's logging / lazy-loading quirks are handled in one place.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import jieba  # type: ignore[import-untyped, unused-ignore]

# jieba attaches its own stderr handler at DEBUG level and prints "Building prefix dict ..." the
# first time it is used; a service log must not get that noise.
logging.getLogger("jieba").setLevel(logging.WARNING)

# jieba.analyse's TF-IDF table, next to its module; read by _IdfTable, not by importing
# jieba.analyse (see _IdfTable for why).
_IDF_PATH = Path(jieba.__file__).parent / "analyse" / "idf.txt"
# jieba.analyse.TFIDF.STOP_WORDS: the words its extract_tags never returns.
_TFIDF_STOP_WORDS = frozenset(
    (
        "the", "of", "is", "and", "to", "in", "that", "we", "for", "an", "are",
        "by", "be", "as", "on", "with", "can", "if", "from", "which", "you", "it",
        "this", "then", "at", "have", "all", "not", "one", "has", "or",
    )
)  # fmt: skip


def initialize() -> None:
    """Load jieba's prefix dictionary now instead of on the first segmentation call."""
    logging.getLogger("jieba").setLevel(logging.WARNING)
    jieba.initialize()


# The longest piece of text handed to jieba at once. jieba's HMM (finalseg.viterbi)
# copies its best path at every character, so a run of characters it does not know costs
# time quadratic in the run's length: 8,000 rare Han characters without punctuation took
# 1.1-1.6 s to segment, 200,000 would take hours. Pieces of this size keep it
# linear; real text breaks its runs with punctuation long before this, and no dictionary
# word is near this long, so only a cut through a longer unbroken run can differ.
MAX_PIECE_CHARS = 128


def pieces(text: str, size: int = MAX_PIECE_CHARS) -> list[str]:
    """``text`` in consecutive pieces of at most ``size`` characters, each cut after the
    last whitespace or punctuation of its window when there is one (so words stay whole)."""
    if len(text) <= size:
        return [text]
    out: list[str] = []
    start = 0
    while len(text) - start > size:
        window = text[start : start + size]
        cut = max(window.rfind(c) for c in _BREAKS) + 1
        end = start + (cut if cut > size // 2 else size)
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return out


_BREAKS = (" ", "\n", "，", "。", ",", ".", "！", "？", "!", "?", "、", "；", ";")


def cut_for_search(text: str) -> list[str]:
    """Segment ``text`` in search mode (long words also yield their sub-words), HMM on."""
    return [str(token) for piece in pieces(text) for token in jieba.cut_for_search(piece, HMM=True)]


class _IdfTable:
    """jieba's bundled IDF table (word → idf) and its median, held compactly.

    ``import jieba.analyse`` would load the same table, but it also imports
    ``jieba.posseg``, whose tagger reads the whole dictionary into a word → tag table
    that topic extraction never uses; the two cost the server about 75 MiB of its
    ~260 MiB idle RSS (tracemalloc). Here the table shares its key strings
    with the dictionary jieba already holds (256k of its 270k words) and its values
    with each other (3.3k distinct idfs), so it costs about a dict's slots (~10 MiB).
    """

    def __init__(self, path: Path) -> None:
        known = {word: word for word in jieba.dt.FREQ}
        values: dict[float, float] = {}
        table: dict[str, float] = {}
        for line in path.read_text(encoding="utf-8").splitlines():
            word, idf = line.strip().split(" ")
            value = float(idf)
            table[known.get(word, word)] = values.setdefault(value, value)
        self.idf = table
        self.median = sorted(table.values())[len(table) // 2]


_idf_lock = threading.Lock()
_idf_table: _IdfTable | None = None


def _idf() -> _IdfTable:
    """The IDF table, read on first use under a lock (after jieba's dictionary)."""
    global _idf_table
    with _idf_lock:
        if _idf_table is None:
            initialize()
            _idf_table = _IdfTable(_IDF_PATH)
        return _idf_table


def extract_tags(text: str, top_k: int) -> list[str]:
    """TF-IDF keywords of ``text`` using jieba's bundled IDF table, best first.

    The same computation as ``jieba.analyse.extract_tags(text, topK=top_k)``, step for
    step (so the same floats and the same order of ties): jieba's default segmentation,
    words of under two characters and its stop words skipped, weight = count × idf /
    total count, with the median idf for unknown words; a stable sort, best first.
    """
    table = _idf()
    freq: dict[str, float] = {}
    for word in (w for piece in pieces(text) for w in jieba.dt.cut(piece)):
        if len(word.strip()) < 2 or word.lower() in _TFIDF_STOP_WORDS:
            continue
        freq[word] = freq.get(word, 0.0) + 1.0
    total = sum(freq.values())
    for word in freq:
        freq[word] *= table.idf.get(word, table.median) / total
    return [str(tag) for tag in sorted(freq, key=freq.__getitem__, reverse=True)[:top_k]]
