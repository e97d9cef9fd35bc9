"""FrequencyTracker: repeated mentions merge, recalls count (seed 002 §3.1).

A memory is "said again" when its normalized content hash matches, or when two
similarities both reach ``near_duplicate_threshold`` (0.85):

- the Jaccard similarity of the index-term sets (words, CJK bigrams and characters), so
  "number 0" and "number 1" stay apart even though their characters nearly match;
- difflib's ratio 2·matches / (len(a) + len(b)) over the normalized characters, so word
  order counts: "Joanna: bye Nate" and "Nate: bye Joanna" share every word but stay apart.

0.85 merges restatements that differ by a particle or punctuation (「我很担心下周的考试」 /
「…考试啊」) and keeps "take care" apart from "you too, take care". The candidates are the
five best BM25 matches of the new text.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from models import UserMemory
from services.analysis import AnalyzedText, content_similarity, jaccard
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
        ids = [mid for mid, _ in candidates]
        rows = await self.memories.get_many(user_id, ids)
        term_sets = await self.search.terms_of(user_id, ids)
        new_terms = set(analysis.terms)
        threshold = self.settings.near_duplicate_threshold
        best: UserMemory | None = None
        best_similarity = 0.0
        for memory_id in ids:
            if jaccard(new_terms, term_sets.get(memory_id, set())) < threshold:
                continue
            similarity = content_similarity(analysis.normalized, rows[memory_id].content)
            if similarity >= threshold and similarity > best_similarity:
                best, best_similarity = rows[memory_id], similarity
        return best

    async def record_mention(self, memory: UserMemory, now: datetime) -> None:
        """The user said it again: mention_count and frequency_count +1, in SQL."""
        await self.memories.record_mention(memory.user_id, memory.id, now)

    async def record_recalls(self, user_id: str, ids: Sequence[int], now: datetime) -> None:
        """Each recalled memory: recall_count and frequency_count +1, in SQL."""
        await self.memories.record_recalls(user_id, ids, now)
