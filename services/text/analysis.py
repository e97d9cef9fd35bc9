"""Text analysis at write and query time: index terms, emotion and topics in one place."""

from __future__ import annotations

from collections import Counter
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from services.core.settings import Settings
from services.text import (
    EmotionAnalyzer,
    TopicExtractor,
    content_hash,
    get_tokenizer,
    normalize_content,
)

# Character terms share the index with words; prefixes keep them apart ("项目" vs "~项目").
BIGRAM_PREFIX = "~"
UNIGRAM_PREFIX = "^"
MAX_TERM_LENGTH = 64


@dataclass(frozen=True)
class AnalyzedText:
    """Everything the service derives from a memory's text (and explicit emotion tags)."""

    content_hash: str
    normalized: str
    terms: Counter[str]
    emotion_tags: list[str]
    emotion_score: float
    topics: list[str] = field(default_factory=list)

    @property
    def doc_length(self) -> int:
        """Number of indexed terms, for BM25 length normalisation."""
        return sum(self.terms.values())


class TextAnalyzer:
    """Jieba tokens plus Chinese character bigrams, emotion and topics; built once."""

    def __init__(self, settings: Settings) -> None:
        self.tokenizer = get_tokenizer()
        self.emotions = EmotionAnalyzer(explicit_tag_weight=settings.explicit_emotion_tag_weight)
        self.topic_extractor = TopicExtractor(top_k=settings.topics_per_memory)

    def warm(self) -> None:
        """Load jieba's dictionaries now rather than on the first request."""
        self.tokenizer.warm()
        self.topic_extractor.extract("预热 warm up")

    def terms(self, text: str) -> Counter[str]:
        """Index terms: jieba search-mode tokens plus the CJK character fallback.

        Bigrams let 「项目经理」 match 「这个项目的经理」 even where jieba segments the
        two differently (seed 003's n-gram matching). Single Han characters (stopwords
        aside) are indexed too, so a one-character query such as 「猫」 still finds
        「我的猫叫咪咪」, which jieba cuts as 猫叫 / 咪咪.
        """
        tokens = [t for t in self.tokenizer.tokenize(text) if len(t) <= MAX_TERM_LENGTH]
        terms: Counter[str] = Counter(tokens)
        terms.update(BIGRAM_PREFIX + g for g in self.tokenizer.cjk_ngrams(text, 2))
        stop = self.tokenizer.stopwords_zh
        terms.update(
            UNIGRAM_PREFIX + c for c in self.tokenizer.cjk_ngrams(text, 1) if c not in stop
        )
        return terms

    def query_terms(self, text: str) -> Counter[str]:
        """Query terms: words and bigrams, and a character term only for a one-character
        word (a longer word is better matched by its words and bigrams)."""
        tokens = [t for t in self.tokenizer.tokenize(text) if len(t) <= MAX_TERM_LENGTH]
        terms: Counter[str] = Counter(tokens)
        terms.update(BIGRAM_PREFIX + g for g in self.tokenizer.cjk_ngrams(text, 2))
        terms.update(UNIGRAM_PREFIX + t for t in tokens if len(t) == 1 and _is_han(t))
        return terms

    def analyze(self, text: str, explicit_tags: list[str] | None = None) -> AnalyzedText:
        """All write-time analysis of one memory."""
        emotion = self.emotions.analyze(text, explicit_tags or [])
        return AnalyzedText(
            content_hash=content_hash(text),
            normalized=normalize_content(text),
            terms=self.terms(text),
            emotion_tags=list(emotion.tags),
            emotion_score=emotion.score,
            topics=[t for t in self.topic_extractor.extract(text) if len(t) <= MAX_TERM_LENGTH],
        )


def term_kind(term: str) -> str:
    """``word``, ``bigram`` or ``char``."""
    if term.startswith(BIGRAM_PREFIX):
        return "bigram"
    if term.startswith(UNIGRAM_PREFIX):
        return "char"
    return "word"


def _is_han(token: str) -> bool:
    return "\u3400" <= token <= "\u9fff" or "\uf900" <= token <= "\ufaff"


def jaccard(first: AbstractSet[str], second: AbstractSet[str]) -> float:
    """|A ∩ B| / |A ∪ B|; 0 for two empty sets.

    |A ∪ B| is counted as |A| + |B| − |A ∩ B| rather than built: MMR calls this for every
    pair of its pool and a selected memory, and the union was a new set each time.
    """
    common = len(first & second)
    union = len(first) + len(second) - common
    return common / union if union else 0.0
