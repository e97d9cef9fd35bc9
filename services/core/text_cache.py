"""A least-recently-used cache keyed by a text, bounded in characters as well as entries.

``functools.lru_cache(maxsize=50_000)`` bounds how many texts a cache keeps, not how big
they are: every per-message analysis (terms, bigrams, keywords, token counts) keeps its
text as the key and a value that grows with it, and a message may hold 200,000
characters, so such a cache had no useful bound on memory. Here
the texts kept add up to at most ``max_chars`` characters (a text longer than a tenth of
that is computed and not kept), and at most ``max_entries`` of them; the least recently
used go first. Safe to share between threads (the analyses run in worker threads).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class TextCache(Generic[K, V]):
    """``f(key)`` remembered for the most recently used keys, within both bounds;
    ``size(key)`` is a key's text length (the key itself for a string)."""

    def __init__(
        self,
        function: Callable[[K], V],
        max_entries: int,
        max_chars: int,
        size: Callable[[K], int] = len,  # type: ignore[assignment]
    ) -> None:
        self.function = function
        self.max_entries = max_entries
        self.max_chars = max_chars
        self.size = size
        self.chars = 0
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, key: K) -> V:
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        value = self.function(key)
        chars = self.size(key)
        if chars * 10 > self.max_chars:
            return value
        with self._lock:
            if key not in self._entries:
                self._entries[key] = value
                self.chars += chars
                while len(self._entries) > self.max_entries or self.chars > self.max_chars:
                    old, _ = self._entries.popitem(last=False)
                    self.chars -= self.size(old)
        return value

    def __len__(self) -> int:
        return len(self._entries)

    def cache_clear(self) -> None:
        """Forget everything."""
        with self._lock:
            self._entries.clear()
            self.chars = 0


def text_cache(
    max_entries: int, max_chars: int
) -> Callable[[Callable[[str], V]], TextCache[str, V]]:
    """Decorator form of :class:`TextCache` for a function of one string."""

    def wrap(function: Callable[[str], V]) -> TextCache[str, V]:
        cache = TextCache(function, max_entries, max_chars)
        cache.__doc__ = function.__doc__
        return cache

    return wrap
