"""FrequencyTracker: repeated mentions merge, recalls count (seed 002 §3.1).

A memory is "said again" when its normalized content hash matches, or when two
similarities both reach ``near_duplicate_threshold`` (0.85):

- the Jaccard similarity of the index-term sets (words, CJK bigrams and characters), so
  "number 0" and "number 1" stay apart even though their characters nearly match;
- difflib's ratio 2·matches / (len(a) + len(b)) over the normalized characters, so word
  order counts: "Joanna: bye Nate" and "Nate: bye Joanna" share every word but stay apart.

0.85 merges restatements that differ by a particle or punctuation (「我很担心下周的考试」 /
「…考试啊」) and keeps "take care" apart from "you too, take care". Candidates come from
an exact prefix filter over the inverted index (services/near_duplicates.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from models import UserMemory
from services.analysis import AnalyzedText, content_similarity
from services.near_duplicates import probe
from services.repositories.memories import MemoryRepository
from services.repositories.search import SearchRepository
from services.settings import Settings

# Verified candidates per new text, most probe terms first (a true near-duplicate holds
# nearly all of them, so it ranks at the top).
NEAR_DUPLICATE_CANDIDATES = 20


class FrequencyTracker:
    """Finds the memory a new statement repeats, and counts mentions and recalls atomically."""

    def __init__(
        self, memories: MemoryRepository, search: SearchRepository, settings: Settings
    ) -> None:
        self.memories = memories
        self.search = search
        self.settings = settings

    async def find_near_duplicate(
        self, user_id: str, analysis: AnalyzedText, frequencies: Mapping[str, int] | None = None
    ) -> tuple[UserMemory, float] | None:
        """The stored memory most similar to this text among its near-duplicates.

        Candidates come from the prefix filter (services/near_duplicates.py): exact for
        the term-set threshold, and a handful of index lookups however large the user.
        ``frequencies`` (the user's document frequencies of at least this text's terms)
        saves a lookup when a batch fetched them for all its texts at once.
        """
        if not analysis.terms:
            return None
        threshold = self.settings.near_duplicate_threshold
        if frequencies is None:
            frequencies = await self.search.document_frequencies(user_id, list(analysis.terms))
        probe_terms, need = probe(analysis.terms, threshold, frequencies)
        if sum(1 for t in probe_terms if t in frequencies) < need:
            return None  # too many of the text's terms are new to this user
        ids = await self.search.memories_holding(
            user_id, probe_terms, need, NEAR_DUPLICATE_CANDIDATES
        )
        overlaps = await self.search.overlaps(user_id, ids, list(analysis.terms))
        size = len(analysis.terms)
        close = [
            i
            for i, (shared, total) in overlaps.items()
            if shared / (size + total - shared) >= threshold
        ]
        if not close:
            return None
        rows = await self.memories.get_many(user_id, close)
        best: tuple[UserMemory, float] | None = None
        for memory_id in close:
            similarity = content_similarity(analysis.normalized, rows[memory_id].content)
            if similarity >= threshold and (best is None or similarity > best[1]):
                best = rows[memory_id], similarity
        return best

    async def record_mention(self, memory: UserMemory, now: datetime, times: int = 1) -> None:
        """The user said it again (``times`` times): mention and frequency counts, in SQL."""
        await self.memories.record_mention(memory.user_id, memory.id, now, times)

    async def record_recalls(self, user_id: str, ids: Sequence[int], now: datetime) -> None:
        """Each recalled memory: recall_count and frequency_count +1, in SQL."""
        await self.memories.record_recalls(user_id, ids, now)
