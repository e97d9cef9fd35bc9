"""The memories a context request injects: recalled, cached, loaded progressively.

- *Private memories first* (seed 001 §1): the user's memories for the query, through
  :meth:`RecallService.recall_memories` with ``track=False`` (only the memories actually
  injected are counted, by the caller).
- *Progressive loading* (seed 001 §4.3 渐进式信息加载): a request recalls ``memory_top_k``
  memories; while a full page came back the answer carries a ``next_cursor``, and the
  next request with it recalls ``memory_top_k`` deeper ("more memories on request": the
  assistant found what it had not enough, or the user asked for detail).
- *Summary* (seed 004 §2, :mod:`.recalled_summary`): the recalled memories in 200
  characters, when asked for.
- *Knowledge cache* (:mod:`.knowledge_cache`): the above for five minutes per normalised
  query, invalidated by any write of the user's memories.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from datetime import UTC, tzinfo

from services.context.assembly.assembler import MemoryCandidate
from services.context.assembly.knowledge_cache import (
    CacheKey,
    CacheState,
    KnowledgeCache,
    query_key,
)
from services.context.assembly.recalled_summary import MemorySummary, SummaryMode, summarize, wanted
from services.context.shared.llm_client import ChatCompletionsClient
from services.core.clock import Clock
from services.core.errors import InvalidInput
from services.core.validation import MAX_TOP_K
from services.recall.recall_service import RecallService
from services.recall.sufficiency import Sufficiency, sufficiency
from services.remembering.memory_service import MemoryService


@dataclass(frozen=True)
class Recalled:
    """What one recall found (the knowledge cache's value)."""

    candidates: tuple[MemoryCandidate, ...]
    full: bool  # as many as asked: there may be more
    summary: MemorySummary | None
    # Seed 001 §1.2 for this recall, and the hits a tracked recall would count
    # (RecallService.counts): only those count when injected.
    sufficiency: Sufficiency | None = None
    countable: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Knowledge:
    """The memories for the block, the cursor to more, and whether the cache answered."""

    candidates: tuple[MemoryCandidate, ...]
    summary: MemorySummary | None
    next_cursor: str | None
    cache: CacheState
    depth: int
    sufficiency: Sufficiency | None = None
    countable: frozenset[int] = frozenset()


def encode_cursor(query: str, depth: int) -> str:
    """An opaque cursor: the query it belongs to and how deep it has been recalled."""
    raw = json.dumps({"q": query_key(query), "d": depth}, separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str, query: str) -> int:
    """The depth inside a cursor from :func:`encode_cursor` for the same query."""
    try:
        raw = json.loads(base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)))
        depth, key = int(raw["d"]), raw["q"]
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidInput("malformed cursor") from exc
    if key != query_key(query):
        raise InvalidInput("cursor belongs to a different query")
    if not 1 <= depth < MAX_TOP_K:
        raise InvalidInput("malformed cursor")
    return depth


class KnowledgeLoader:
    """Loads a context request's memories; see the module docstring."""

    def __init__(
        self,
        recall: RecallService,
        memories: MemoryService,
        clock: Clock,
        cache: KnowledgeCache[Recalled] | None = None,
        llm: ChatCompletionsClient | None = None,
    ) -> None:
        self.recall = recall
        self.memories = memories
        self.clock = clock
        self.cache = cache
        self.llm = llm

    async def load(
        self, user_id: str, query: str, top_k: int, cursor: str | None, mode: SummaryMode
    ) -> Knowledge:
        """The memories for ``query``, ``top_k`` deeper than ``cursor`` says."""
        depth = top_k if cursor is None else decode_cursor(cursor, query) + top_k
        depth = min(depth, MAX_TOP_K)
        found, state = await self._recalled(user_id, query, depth, mode)
        more = found.full and depth < MAX_TOP_K
        return Knowledge(
            found.candidates,
            found.summary,
            encode_cursor(query, depth) if more else None,
            state,
            depth,
            found.sufficiency,
            found.countable,
        )

    async def _recalled(
        self, user_id: str, query: str, depth: int, mode: SummaryMode
    ) -> tuple[Recalled, CacheState]:
        now = self.clock()
        key = None
        if self.cache is not None and self.cache.enabled:
            # Read in this request's transaction: a write committed before it is counted.
            version = await self.memories.write_version(user_id)
            key = CacheKey(user_id, version, query_key(query), depth, mode)
            cached = self.cache.get(key, now)
            if cached is not None:
                return cached, "hit"
        hits = await self.recall.recall_memories(user_id, query, depth, track=False)
        # The memory block dates each memory by the person's own calendar.
        zone: tzinfo = await self.memories.time_zone(user_id) if hits else UTC
        candidates = tuple(
            MemoryCandidate(
                id=h.memory.id,
                content=h.memory.content,
                memory_type=h.memory.memory_type,
                score=round(h.score, 6),
                importance=h.memory.importance_score,
                created_at=h.memory.created_at.astimezone(zone),
            )
            for h in hits
        )
        texts = [c.content for c in candidates]
        summary = None
        if wanted(mode, texts):
            summary = await summarize(self.llm, texts, [c.id for c in candidates], query)
        verdict = sufficiency(
            [h.evidence for h in hits],
            [h.confidence for h in hits],
            self.recall.settings,
            asked=bool(query.strip()),
        )
        countable = frozenset(h.memory.id for h in hits if self.recall.counts(h))
        found = Recalled(candidates, len(hits) >= depth, summary, verdict, countable)
        if key is not None and self.cache is not None:
            self.cache.put(key, found, now)
        return found, "miss" if key is not None else "off"
