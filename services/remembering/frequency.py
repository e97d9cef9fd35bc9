"""FrequencyTracker: repeated mentions merge, recalls count (seed 002 §3.1).

A memory is "said again" when its normalized content hash matches, or when two
similarities both reach ``near_duplicate_threshold`` (0.85):

- the Jaccard similarity of the index-term sets (words, CJK bigrams and characters), so
  "number 0" and "number 1" stay apart even though their characters nearly match;
- difflib's ratio 2·matches / (len(a) + len(b)) over the normalized characters, so word
  order counts: "Joanna: bye Nate" and "Nate: bye Joanna" share every word but stay apart.

0.85 merges restatements that differ by a particle or punctuation (「我很担心下周的考试」 /
「…考试啊」) and keeps "take care" apart from "you too, take care". Candidates come from
an exact prefix filter over the inverted index (services/remembering/near_duplicates.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime

from models import UserMemory
from services.core.settings import Settings
from services.remembering.near_duplicates import probe
from services.repositories.memories import MemoryRepository
from services.repositories.search import SearchRepository
from services.text.analysis import AnalyzedText, content_similarity, jaccard

# Verified candidates per new text, most probe terms first (a true near-duplicate holds
# nearly all of them, so it ranks at the top).
NEAR_DUPLICATE_CANDIDATES = 20
# Up to this many texts to probe, the database counts each text's candidates on its own
# (SearchRepository.most_held); beyond it, the postings of all probe terms are read once
# and counted here for every text (see find_near_duplicates).
FEW_TEXTS = 8


def _most_held(probe: tuple[list[str], int], holders: Mapping[str, set[int]]) -> list[int]:
    """The memories holding at least ``need`` probe terms, most held first (then newest).

    A memory holding ``need`` of the k probe terms holds one of any k - need + 1 of them,
    so the rarest k - need + 1 give every candidate; the other terms only add to the
    counts of those candidates (set intersections and Counter updates, all in C: per
    candidate membership tests were most of a batch's duplicate search, issue 5).
    """
    terms, need = probe
    split = len(terms) - need + 1
    held: Counter[int] = Counter()
    for term in terms[:split]:
        held.update(holders.get(term, ()))
    candidates = set(held)
    for term in terms[split:]:
        held.update(holders.get(term, set()) & candidates)
    ranked = sorted((i for i, n in held.items() if n >= need), key=lambda i: (-held[i], -i))
    return ranked[:NEAR_DUPLICATE_CANDIDATES]


class FrequencyTracker:
    """Finds the memory a new statement repeats, and counts mentions atomically (recalls are
    counted by MemoryRepository.count_recalls)."""

    def __init__(
        self, memories: MemoryRepository, search: SearchRepository, settings: Settings
    ) -> None:
        self.memories = memories
        self.search = search
        self.settings = settings

    async def find_near_duplicates(
        self,
        user_id: str,
        analyses: Sequence[AnalyzedText],
        frequencies: Mapping[str, int],
    ) -> list[tuple[UserMemory, float] | None]:
        """Per text, the stored memory most similar to it among its near-duplicates.

        Candidates come from the prefix filter (services/remembering/near_duplicates.py): exact for
        the term-set threshold. A large batch costs three lookups however many texts it
        holds: the postings of every probe term, the term sets of every candidate, and
        the rows of the candidates that pass the term-set test (one round trip per text
        made batch ingest wait on the database); a few texts count their candidates in
        the database instead (:meth:`_candidates`). ``frequencies`` are the user's
        document frequencies of at least these texts' terms.
        """
        threshold = self.settings.near_duplicate_threshold
        probes: list[tuple[list[str], int] | None] = []
        for analysis in analyses:
            probe_terms, need = probe(analysis.terms, threshold, frequencies)
            known = [t for t in probe_terms if t in frequencies]
            # Too many of the text's terms are new to this user for any to be close.
            probes.append((known, need) if analysis.terms and len(known) >= need else None)
        candidates = await self._candidates(user_id, probes)
        term_sets = await self.search.term_sets(user_id, {i for c in candidates for i in c})
        close: list[list[int]] = []
        for analysis, ids in zip(analyses, candidates, strict=True):
            terms = set(analysis.terms)
            close.append([i for i in ids if jaccard(terms, term_sets.get(i, set())) >= threshold])
        rows = await self.memories.get_many(user_id, sorted({i for c in close for i in c}))
        found: list[tuple[UserMemory, float] | None] = []
        for analysis, ids in zip(analyses, close, strict=True):
            best: tuple[UserMemory, float] | None = None
            for memory_id in ids:
                similarity = content_similarity(analysis.normalized, rows[memory_id].content)
                if similarity >= threshold and (best is None or similarity > best[1]):
                    best = rows[memory_id], similarity
            found.append(best)
        return found

    async def _candidates(
        self, user_id: str, probes: Sequence[tuple[list[str], int] | None]
    ) -> list[list[int]]:
        """Per probe, the memories holding at least its ``need`` terms (same answer both ways).

        A few texts (a single add): one counting statement per text, so no posting
        leaves the database. At a bench user of 100k memories a text's probe terms hold
        some 50-60k postings: reading them into Python sets cost 88-128 ms per text,
        counting them in SQLite 22-24 ms, with the same candidates (issue 5, scratch
        harness over the bench's generator). A large batch: the postings of all its
        probe terms once, counted here for every text; a statement per text made the
        duplicate search of a batch of 1,000 at a user of 3k memories 4-5x slower
        (1.03 s against 0.21-0.27 s, same harness).
        """
        live = [p for p in probes if p]
        if len(live) <= FEW_TEXTS:
            limit = NEAR_DUPLICATE_CANDIDATES
            return [
                await self.search.most_held(user_id, p[0], p[1], limit) if p else [] for p in probes
            ]
        holders = await self.search.holders({t for p in live for t in p[0]}, user_id)
        return [_most_held(p, holders) if p else [] for p in probes]

    async def record_mention(self, memory: UserMemory, now: datetime, times: int = 1) -> None:
        """The user said it again (``times`` times): mention and frequency counts, in SQL."""
        await self.memories.record_mention(memory.user_id, memory.id, now, times)
