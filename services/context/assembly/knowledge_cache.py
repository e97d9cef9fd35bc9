"""The short-lived knowledge cache of context assembly (seed 004 "缓存时长 5分钟", seed 001
§4.3 信息缓存机制).

What a context request recalled for a query (the ranked memories, and the memories'
≤ 200-character summary when one was written) is kept for ``CONTEXT_CACHE_TTL_SECONDS``
(300), keyed by the user, their *write version*, the normalised query (case, width,
punctuation and spacing folded, :func:`services.text.normalize_content`), how deep it was
recalled and how it may be summarised. The frontend sends the same question again on
every retry and every re-render, and the summary costs an LLM call.

Invalidation is by key, not by message: ``memory_users.write_version`` is raised by every
write of the user's memories in the write's own transaction
(``MemoryRepository.lock_user``), and each request reads it from the database before
looking here. After a write commits, in this process or any other (``serve --workers N``
on PostgreSQL), no request can form the old key again, so the old entry is never served;
it ages out. What the version does not count (a recall's count, the scheduled rescoring)
moves importance slowly, and an entry is at most five minutes old.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Generic, Literal, TypeVar

from services.text import normalize_content

V = TypeVar("V")
# Whether the cache answered a recall ("off": no cache; "": nothing was recalled).
CacheState = Literal["hit", "miss", "off", ""]


def query_key(query: str) -> str:
    """The normalised query's short hash: the same question however it is typed."""
    return hashlib.sha256(normalize_content(query).encode()).hexdigest()[:24]


@dataclass(frozen=True)
class CacheKey:
    """What a cached recall depends on."""

    user_id: str
    write_version: int
    query: str  # query_key(...)
    depth: int  # memories recalled
    summary_mode: str  # off, auto, always


@dataclass(frozen=True)
class _Entry(Generic[V]):
    value: V
    stored_at: datetime


class KnowledgeCache(Generic[V]):
    """A bounded, time-limited map; see the module docstring. ``ttl_seconds`` 0 is off."""

    def __init__(self, ttl_seconds: float, max_entries: int) -> None:
        self._ttl = timedelta(seconds=ttl_seconds)
        self._max = max_entries
        self._entries: OrderedDict[CacheKey, _Entry[V]] = OrderedDict()

    @property
    def enabled(self) -> bool:
        """False when the TTL or the size is 0."""
        return self._ttl > timedelta(0) and self._max > 0

    def get(self, key: CacheKey, now: datetime) -> V | None:
        """The value stored under ``key`` less than the TTL ago."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        if now - entry.stored_at >= self._ttl:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return entry.value

    def put(self, key: CacheKey, value: V, now: datetime) -> None:
        """Store ``value``; the least recently used entries go beyond the bound, and so do
        the user's entries of older write versions (they can never be read again)."""
        if not self.enabled:
            return
        stale: Sequence[CacheKey] = [
            k
            for k in self._entries
            if k.user_id == key.user_id and k.write_version < key.write_version
        ]
        for old in stale:
            del self._entries[old]
        self._entries[key] = _Entry(value, now)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def forget_user(self, user_id: str) -> None:
        """Drop every entry of one user (an erasure: they hold the person's memories)."""
        for key in [k for k in self._entries if k.user_id == user_id]:
            del self._entries[key]

    def __len__(self) -> int:
        return len(self._entries)
