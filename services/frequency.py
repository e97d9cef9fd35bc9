"""FrequencyTracker: repeated mentions merge, recalls count (seed 002 §3.1).

A memory is "said again" when its normalized content hash matches, or when the Jaccard
similarity of the two texts' index-term sets (jieba words plus CJK bigrams) is at least
``near_duplicate_threshold`` (0.85). Bigrams make the measure robust to jieba splitting
the same sentence differently; 0.85 merges restatements that differ by a particle or a
punctuation mark while keeping "I like tea" and "I like green tea" apart.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from models import UserMemory
from services.analysis import AnalyzedText, jaccard
from services.relevance import term_weights
from services.repositories.memories import MemoryRepository
from services.repositories.search import SearchRepository
from services.settings import Settings

NEAR_DUPLICATE_CANDIDATES = 5


class FrequencyTracker:
    """Finds the memory a new statement repeats, and counts mentions and recalls atomically."""

    def __init__(
        self, memories: MemoryRepository, search: SearchRepository, settings: Settings
    ) -> None:
        self.memories = memories
        self.search = search
        self.settings = settings

    async def find_repeat(self, user_id: str, analysis: AnalyzedText) -> UserMemory | None:
        """The existing memory this text repeats, exactly or nearly, if any."""
        exact = await self.memories.get_by_hash(user_id, analysis.content_hash)
        if exact is not None:
            return exact
        stats = await self.memories.user_stats(user_id)
        if stats is None or stats.memory_count == 0 or not analysis.terms:
            return None
        terms = list(analysis.terms)
        weights = term_weights(
            await self.search.document_frequencies(user_id, terms),
            int(stats.memory_count),
            self.settings,
        )
        candidates = await self.search.bm25_candidates(
            user_id,
            weights,
            k1=self.settings.bm25_k1,
            b=self.settings.bm25_b,
            avg_doc_length=stats.total_doc_length / max(stats.memory_count, 1),
            limit=NEAR_DUPLICATE_CANDIDATES,
        )
        if not candidates:
            return None
        term_sets = await self.search.terms_of(user_id, [mid for mid, _ in candidates])
        new_terms = set(analysis.terms)
        best_id, best = None, 0.0
        for memory_id, _ in candidates:
            similarity = jaccard(new_terms, term_sets.get(memory_id, set()))
            if similarity > best:
                best_id, best = memory_id, similarity
        if best_id is None or best < self.settings.near_duplicate_threshold:
            return None
        return await self.memories.get(user_id, best_id)

    async def record_mention(self, memory: UserMemory, now: datetime) -> None:
        """The user said it again: mention_count and frequency_count +1, in SQL."""
        await self.memories.record_mention(memory.user_id, memory.id, now)

    async def record_recalls(self, user_id: str, ids: Sequence[int], now: datetime) -> None:
        """Each recalled memory: recall_count and frequency_count +1, in SQL."""
        await self.memories.record_recalls(user_id, ids, now)
