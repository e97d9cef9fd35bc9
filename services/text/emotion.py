"""Lexicon-based emotion / urgency detection for Chinese and English memories.

The score feeds the importance formula of the design doc (seed 002 §3.3): the emotion score of a
memory is the highest weight among the emotion keywords it contains.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from .emotion_lexicon import (
    DEFAULT_LEXICON,
    DEGREE_ADVERBS_EN,
    DEGREE_ADVERBS_ZH,
    EN_STEM_FALSE_FRIENDS,
    NEGATORS_EN,
    NEGATORS_ZH,
    PSEUDO_NEGATIONS_ZH,
)
from .stemming import stem_word
from .tokenizer import HAN_RANGES

_WORD_RE = re.compile(rf"[^\W_{HAN_RANGES}]+(?:'[^\W_{HAN_RANGES}]+)*")
_HAN_RE = re.compile(rf"[{HAN_RANGES}]")

_ZH_NEGATION_WINDOW = 3  # characters
_EN_NEGATION_WINDOW = 3  # words
_EN_DEGREE_WINDOW = 2  # words

# Longest first so 有一点 wins over 一点 and 真的 over 真.
_ZH_ADVERBS = sorted(DEGREE_ADVERBS_ZH, key=len, reverse=True)
_EN_ADVERBS = sorted(DEGREE_ADVERBS_EN.items(), key=lambda item: len(item[0]), reverse=True)


@dataclass(frozen=True)
class EmotionMatch:
    """One lexicon keyword found in the text.

    ``weight`` is the effective contribution: lexicon weight x ``modifier`` capped at 1.0, or
    0.0 when ``negated``. ``modifier`` is the degree-adverb factor (1.0 without an adverb).
    """

    keyword: str
    weight: float
    negated: bool
    modifier: float


@dataclass(frozen=True)
class EmotionResult:
    """Analysis outcome: distinct non-negated keywords (first-appearance order, explicit tags
    appended), their max weight as ``score`` (0.0 if none) and every match for explanations."""

    tags: list[str]
    score: float
    matches: list[EmotionMatch]


def _fold(text: str) -> str:
    # NFKC turns full-width Latin into ASCII; curly apostrophes become ' so "don’t" == "don't".
    folded = unicodedata.normalize("NFKC", text).lower()
    return folded.replace("\u2019", "'").replace("\u2018", "'")


def _clauses(text: str) -> Iterator[tuple[int, str]]:
    """(offset, clause) pieces split at punctuation and newlines, so that look-backs for
    negators and adverbs never reach into a previous clause (「不是这个，急需…」)."""
    start = 0
    for i, ch in enumerate(text):
        if ch == "\n" or (ch != "'" and unicodedata.category(ch).startswith("P")):
            if i > start:
                yield start, text[start:i]
            start = i + 1
    if start < len(text):
        yield start, text[start:]


def _mask_pseudo_negations(prefix: str) -> str:
    for word in PSEUDO_NEGATIONS_ZH:
        prefix = prefix.replace(word, "\0" * len(word))
    return prefix


def _zh_negated(masked: str, end: int) -> bool:
    """True if a negator ends within the ``_ZH_NEGATION_WINDOW`` characters before ``end``."""
    window = masked[:end]
    for negator in NEGATORS_ZH:
        idx = window.rfind(negator)
        if idx >= 0 and idx + len(negator) > end - _ZH_NEGATION_WINDOW:
            return True
    return False


def _en_degree(prefix: list[str]) -> float:
    """Factor of the nearest degree modifier within the two words before a keyword."""
    tail = prefix[-_EN_DEGREE_WINDOW:]
    for end in range(len(tail), 0, -1):  # nearest position first
        for phrase, factor in _EN_ADVERBS:
            start = end - len(phrase)
            if start >= 0 and tuple(tail[start:end]) == phrase:
                return factor
    return 1.0


def _is_en_negator(word: str) -> bool:
    return word in NEGATORS_EN or word.endswith("n't")


class EmotionAnalyzer:
    """Detects emotion / urgency keywords with degree adverbs and negation.

    Matching is leftmost-longest and non-overlapping: 「很重要」 is one 0.9 match, not 重要;
    「急需」 is not also 急. Chinese keywords match as substrings; English keywords match whole
    words case-insensitively on their Snowball stems, so "worries"/"worrying" hit "worry".
    A degree adverb right before a keyword multiplies its weight (x1.2 / x0.6, capped at 1.0);
    a negator shortly before it (不/没/别..., not/no/never/n't...) cancels it entirely.
    Immutable after construction, so one instance can be shared between threads.
    """

    def __init__(
        self,
        lexicon: Mapping[str, float] | None = None,
        explicit_tag_weight: float = 0.5,
    ) -> None:
        if not 0.0 <= explicit_tag_weight <= 1.0:
            raise ValueError("explicit_tag_weight must be within 0..1")
        self._explicit_tag_weight = explicit_tag_weight
        self._lexicon: dict[str, float] = {}
        for raw, weight in (DEFAULT_LEXICON if lexicon is None else lexicon).items():
            keyword = _fold(raw).strip()
            if not keyword or not 0.0 <= weight <= 1.0:
                raise ValueError(f"invalid lexicon entry {raw!r}: {weight!r}")
            self._lexicon[keyword] = weight
        # Chinese keywords indexed by first character, longest first.
        self._zh: dict[str, list[str]] = {}
        # English keywords indexed by the stem tuple, and stem tuples by their first stem.
        self._en: dict[tuple[str, ...], list[str]] = {}
        self._en_first: dict[str, list[tuple[str, ...]]] = {}
        for keyword in self._lexicon:
            if _HAN_RE.search(keyword):
                self._zh.setdefault(keyword[0], []).append(keyword)
                continue
            stems = tuple(stem_word(w) for w in _WORD_RE.findall(keyword))
            if not stems:
                raise ValueError(f"lexicon keyword {keyword!r} has no letters or digits")
            if stems not in self._en:
                self._en_first.setdefault(stems[0], []).append(stems)
            self._en.setdefault(stems, []).append(keyword)
        for keywords in self._zh.values():
            keywords.sort(key=len, reverse=True)
        for stem_tuples in self._en_first.values():
            stem_tuples.sort(key=len, reverse=True)

    @property
    def lexicon(self) -> Mapping[str, float]:
        """The normalised keyword -> weight mapping in use (a copy)."""
        return dict(self._lexicon)

    def tag_weight(self, tag: str) -> float:
        """Lexicon weight of ``tag`` (case/width-insensitive), else ``explicit_tag_weight``."""
        return self._lexicon.get(_fold(tag).strip(), self._explicit_tag_weight)

    def score_tags(self, tags: Sequence[str]) -> float:
        """Emotion score of already extracted tags: the max weight, 0.0 for no tags.

        Implements design doc "seed 002 §3.3":
        ``emotion_score = max([EMOTION_KEYWORDS.get(kw, 0) for kw in extracted_emotions],
        default=0.0)`` -- except that a tag missing from the lexicon (an explicit tag given by
        the API caller) counts ``explicit_tag_weight`` instead of 0. Blank tags are ignored.
        """
        return max((self.tag_weight(t) for t in tags if t.strip()), default=0.0)

    def extract(self, text: str) -> list[str]:
        """Convenience: the emotion tags detected in ``text``."""
        return self.analyze(text).tags

    def analyze(self, text: str, explicit_tags: Sequence[str] = ()) -> EmotionResult:
        """Find emotion keywords in ``text`` and merge caller-supplied ``explicit_tags``.

        Explicit tags are stripped (blank ones ignored); a lexicon keyword keeps its lexicon
        weight and canonical spelling, an unknown tag weighs ``explicit_tag_weight``. They are
        appended to the detected tags without duplicates and take part in ``score``.
        """
        folded = _fold(text)
        found: list[tuple[int, EmotionMatch]] = []
        for offset, clause in _clauses(folded):
            found.extend(self._match_zh(offset, clause))
            found.extend(self._match_en(offset, clause))
        found.sort(key=lambda item: item[0])
        matches = [m for _, m in found]

        tags: list[str] = []
        score = 0.0
        for match in matches:
            if match.negated:
                continue
            score = max(score, match.weight)
            if match.keyword not in tags:
                tags.append(match.keyword)
        for raw in explicit_tags:
            tag = raw.strip()
            if not tag:
                continue
            key = _fold(tag).strip()
            canonical = key if key in self._lexicon else tag
            score = max(score, self._lexicon.get(key, self._explicit_tag_weight))
            if canonical not in tags:
                tags.append(canonical)
        return EmotionResult(tags=tags, score=score, matches=matches)

    def _make_match(self, keyword: str, modifier: float, negated: bool) -> EmotionMatch:
        weight = 0.0 if negated else min(1.0, round(self._lexicon[keyword] * modifier, 4))
        return EmotionMatch(keyword=keyword, weight=weight, negated=negated, modifier=modifier)

    def _match_zh(self, offset: int, clause: str) -> list[tuple[int, EmotionMatch]]:
        out: list[tuple[int, EmotionMatch]] = []
        i = prev_end = 0
        while i < len(clause):
            keyword = next((k for k in self._zh.get(clause[i], ()) if clause.startswith(k, i)), "")
            if not keyword:
                i += 1
                continue
            # Look back only to the previous match: it ends the scope of earlier modifiers.
            prefix = clause[prev_end:i]
            adverb = next((a for a in _ZH_ADVERBS if prefix.endswith(a)), "")
            modifier = DEGREE_ADVERBS_ZH.get(adverb, 1.0)
            masked = _mask_pseudo_negations(prefix)
            # The negator may sit right before the keyword (不急) or before its adverb (不太急).
            negated = _zh_negated(masked, len(prefix)) or _zh_negated(
                masked, len(prefix) - len(adverb)
            )
            out.append((offset + i, self._make_match(keyword, modifier, negated)))
            i += len(keyword)
            prev_end = i
        return out

    def _match_en(self, offset: int, clause: str) -> list[tuple[int, EmotionMatch]]:
        spans = list(_WORD_RE.finditer(clause))
        words = [m.group() for m in spans]
        # None never equals a stem, so false friends ("import" vs "important") cannot match.
        keys = [None if w in EN_STEM_FALSE_FRIENDS else stem_word(w) for w in words]
        out: list[tuple[int, EmotionMatch]] = []
        i = prev_end = 0
        while i < len(words):
            key = keys[i]
            candidates = self._en_first.get(key, []) if key is not None else []
            stems = next((s for s in candidates if tuple(keys[i : i + len(s)]) == s), None)
            if stems is None:
                i += 1
                continue
            keyword = self._canonical_en(stems, " ".join(words[i : i + len(stems)]))
            prefix = words[prev_end:i]
            modifier = _en_degree(prefix)
            negated = any(_is_en_negator(w) for w in prefix[-_EN_NEGATION_WINDOW:])
            out.append((offset + spans[i].start(), self._make_match(keyword, modifier, negated)))
            i += len(stems)
            prev_end = i
        return out

    def _canonical_en(self, stems: tuple[str, ...], surface: str) -> str:
        # Several keywords can share a stem ("worried"/"worry"): prefer the exact spelling,
        # otherwise the shortest (base) form, so "worrying" reports "worry".
        keywords = self._en[stems]
        if surface in keywords:
            return surface
        return min(keywords, key=len)
