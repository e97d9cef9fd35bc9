"""Pure-Python text processing for jarvis-memory: normalisation, tokenisation, emotion and
topic extraction for Chinese, English and mixed text (no database, no web)."""

from .emotion import EmotionAnalyzer, EmotionMatch, EmotionResult
from .emotion_lexicon import DEFAULT_LEXICON
from .tokenizer import Tokenizer, content_hash, get_tokenizer, normalize_content
from .topics import TopicExtractor

__all__ = [
    "DEFAULT_LEXICON",
    "EmotionAnalyzer",
    "EmotionMatch",
    "EmotionResult",
    "Tokenizer",
    "TopicExtractor",
    "content_hash",
    "get_tokenizer",
    "normalize_content",
]
