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

import asyncio
from collections.abc import Mapping, Sequence
from datetime import datetime

from models import UserMemory
from services.core.settings import Settings
from services.remembering.near_duplicates import (
    NEAR_DUPLICATE_CANDIDATES,
    Alignment,
    most_held,
    probe,
    size_fits,
)
from services.repositories.memories import MemoryRepository
from services.repositories.search import SearchRepository
from services.text.analysis import AnalyzedText, jaccard
from services.text.tokenizer import normalize_content

# Up to this many texts to probe, the database counts each text's candidates on its own
# (SearchRepository.most_held); beyond it, the postings of all probe terms are read once
# and counted here for every text (see find_near_duplicates).
FEW_TEXTS = 8

Probe = tuple[list[str], int]


def _probes(
    analyses: Sequence[AnalyzedText], threshold: float, frequencies: Mapping[str, int]
) -> list[Probe | None]:
    """Per text, its probe terms the user's memories hold, or None when too few are."""
    probes: list[Probe | None] = []
    for analysis in analyses:
        probe_terms, need = probe(analysis.terms, threshold, frequencies)
        known = [t for t in probe_terms if t in frequencies]
        # Too many of the text's terms are new to this user for any to be close.
        probes.append((known, need) if analysis.terms and len(known) >= need else None)
    return probes


def _ranked(probes: Sequence[Probe | None], holders: Mapping[str, set[int]]) -> list[list[int]]:
    return [most_held(p, holders)[:NEAR_DUPLICATE_CANDIDATES] if p else [] for p in probes]


def _close(
    analyses: Sequence[AnalyzedText],
    candidates: list[list[int]],
    term_sets: dict[int, set[str]],
    threshold: float,
) -> list[list[int]]:
    """Per text, the candidates whose term sets reach the threshold (length filter first)."""
    close: list[list[int]] = []
    for analysis, ids in zip(analyses, candidates, strict=True):
        terms = set(analysis.terms)
        sets = [(i, term_sets.get(i, set())) for i in ids]
        close.append(
            [
                i
                for i, other in sets
                if size_fits(len(terms), len(other), threshold)
                and jaccard(terms, other) >= threshold
            ]
        )
    return close


def _best(
    analyses: Sequence[AnalyzedText],
    close: list[list[int]],
    contents: Mapping[int, str],
    alignment: Alignment,
) -> list[tuple[int, float] | None]:
    """Per text, the most similar close memory whose ratio reaches the threshold."""
    normalized = {i: normalize_content(c) for i, c in contents.items()}
    found: list[tuple[int, float] | None] = []
    for analysis, ids in zip(analyses, close, strict=True):
        best: tuple[int, float] | None = None
        for memory_id in ids:
            similarity = alignment.ratio(
                analysis.normalized, ("stored", memory_id), normalized[memory_id]
            )
            if similarity >= alignment.threshold and (best is None or similarity > best[1]):
                best = memory_id, similarity
        found.append(best)
    return found


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
        alignment: Alignment | None = None,
        roles: Sequence[str] | None = None,
    ) -> list[tuple[UserMemory, float] | None]:
        """Per text, the stored memory most similar to it among its near-duplicates of the
        same role (``roles``, whose words each text is; the person's when None): the
        assistant echoing the person's words is not the person repeating them.

        Candidates come from the prefix filter (services/remembering/near_duplicates.py):
        exact for the term-set threshold. A large batch costs three lookups however many
        texts it holds: the postings of every probe term, the term sets of every
        candidate, and the rows of the candidates that pass the term-set test (one round
        trip per text made batch ingest wait on the database); a few texts count their
        candidates in the database instead (:meth:`_candidates`). ``frequencies`` are the
        user's document frequencies of at least these texts' terms. The counting, the
        Jaccard tests and the alignments run in a worker thread, never on the event loop.
        """
        threshold = self.settings.near_duplicate_threshold
        alignment = alignment or Alignment(threshold)
        probes = await asyncio.to_thread(_probes, analyses, threshold, frequencies)
        candidates = await self._candidates(user_id, probes)
        wanted = {i for c in candidates for i in c}
        if not wanted:
            return [None] * len(analyses)
        term_sets = await self.search.term_sets(user_id, wanted)
        close = await asyncio.to_thread(_close, analyses, candidates, term_sets, threshold)
        rows = await self.memories.get_many(user_id, sorted({i for c in close for i in c}))
        if not rows:
            return [None] * len(analyses)
        # Another role's memories go no further. They may have taken candidate places
        # (most probe terms first), which a true near-duplicate of the same role outranks.
        close = [
            [i for i in ids if i in rows and rows[i].role == role]
            for ids, role in zip(close, roles or ["user"] * len(analyses), strict=True)
        ]
        contents = {i: row.content for i, row in rows.items()}
        best = await asyncio.to_thread(_best, analyses, close, contents, alignment)
        return [None if b is None else (rows[b[0]], b[1]) for b in best]

    async def _candidates(self, user_id: str, probes: Sequence[Probe | None]) -> list[list[int]]:
        """Per probe, the memories holding at least its ``need`` terms (same answer both ways).

        A few texts (a single add): one counting statement per text, so no posting
        leaves the database. At a bench user of 100k memories a text's probe terms hold
        some 50-60k postings: reading them into Python sets cost 88-128 ms per text,
        counting them in SQLite 22-24 ms, with the same candidates (a scratch
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
        return await asyncio.to_thread(_ranked, probes, holders)

    async def record_mention(self, memory: UserMemory, now: datetime, times: int = 1) -> None:
        """The user said it again (``times`` times): mention and frequency counts, in SQL."""
        await self.memories.record_mention(memory.user_id, memory.id, now, times)
