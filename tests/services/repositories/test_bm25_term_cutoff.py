"""A term held by more memories than ``bm25_term_postings`` is read only up to its cutoff
(static pruning, services/repositories/statements/bm25_sql.py), on both databases."""

from __future__ import annotations

import pytest

from models import UserMemory
from services.core.settings import Settings
from services.recall.relevance import field_weights, term_contribution
from services.repositories.search import Bm25Result, SearchRepository
from services.repositories.statements.bm25_sql import LONGEST, Bm25Query
from tests.factories import Services

# "tea" is in all five; lengths grow with the extra words (doc_length counts terms).
TEXTS = [
    "tea",
    "tea garden",
    "tea garden morning",
    "tea garden morning walk",
    "tea garden morning walk river",
]


async def _add_all(services: Services, user_id: str) -> list[UserMemory]:
    return [await services.add(user_id, text) for text in TEXTS]


async def _search(
    services: Services, terms: list[str], term_postings: int, term_share: float = 0.01
) -> Bm25Result:
    """BM25 for user "u", each term read up to max(term_postings, term_share × N)."""
    s = services.settings
    query = Bm25Query(
        "u",
        field_weights(terms, s),
        s.bm25_k1,
        s.bm25_b,
        10,
        term_postings=term_postings,
        term_share=term_share,
    )
    async with services.db.reader() as session:
        return await SearchRepository(session).bm25_search(query)


def _expected(
    memories: list[UserMemory], term: str, result: Bm25Result, settings: Settings, cutoff: int
) -> dict[int, float]:
    """BM25 of ``term`` alone over the memories no longer than ``cutoff``."""
    return {
        m.id: term_contribution(
            term, result.term_weights[term], 1, m.doc_length, result.avg_doc_length, settings
        ).contribution
        for m in memories
        if m.doc_length <= cutoff
    }


async def test_a_term_held_more_often_than_the_bound_is_read_to_its_cutoff(
    services: Services,
) -> None:
    memories = await _add_all(services, "u")
    await _add_all(services, "other")  # another user's postings of the same term
    lengths = sorted(m.doc_length for m in memories)
    assert len(set(lengths)) == len(lengths)  # the test needs distinct lengths

    clipped = await _search(services, ["tea"], term_postings=2)
    whole = await _search(services, ["tea"], term_postings=LONGEST)

    # The cutoff is the 2nd shortest length; only memories that short score.
    assert clipped.term_cutoffs == {"tea": lengths[1]}
    scores = {sketch.id: score for score, sketch in clipped.candidates}
    assert scores == pytest.approx(
        _expected(memories, "tea", clipped, services.settings, lengths[1])
    )
    # Unbounded, every holder scores and no cutoff is reported; the weights agree.
    assert whole.term_cutoffs == {}
    assert len(whole.candidates) == len(TEXTS)
    assert clipped.term_weights == pytest.approx(whole.term_weights)


async def test_a_term_within_the_bound_is_read_whole(services: Services) -> None:
    memories = await _add_all(services, "u")
    at_bound = await _search(services, ["tea"], term_postings=len(TEXTS))
    by_share = await _search(services, ["tea"], term_postings=1, term_share=1.0)
    for result in (at_bound, by_share):
        assert result.term_cutoffs == {}
        assert {sketch.id for _, sketch in result.candidates} == {m.id for m in memories}


async def test_the_bound_is_a_share_of_the_users_memories_when_that_is_more(
    services: Services,
) -> None:
    memories = await _add_all(services, "u")
    lengths = sorted(m.doc_length for m in memories)
    # max(1, floor(0.5 × 5)) = 2 postings; max(3, floor(0.5 × 5)) = 3.
    by_share = await _search(services, ["tea"], term_postings=1, term_share=0.5)
    by_minimum = await _search(services, ["tea"], term_postings=3, term_share=0.5)
    assert by_share.term_cutoffs == {"tea": lengths[1]}
    assert by_minimum.term_cutoffs == {"tea": lengths[2]}


async def test_memories_as_long_as_the_cutoff_are_all_kept(services: Services) -> None:
    same_length = [await services.add("u", f"tea {word}") for word in ("lake", "hill", "moon")]
    longer = await services.add("u", "tea lake hill moon")
    clipped = await _search(services, ["tea"], term_postings=2)
    cutoff = same_length[0].doc_length
    assert {m.doc_length for m in same_length} == {cutoff}
    assert longer.doc_length > cutoff
    assert clipped.term_cutoffs == {"tea": cutoff}
    assert {sketch.id for _, sketch in clipped.candidates} == {m.id for m in same_length}


async def test_a_long_memory_keeps_what_its_other_terms_give_it(services: Services) -> None:
    memories = await _add_all(services, "u")
    longest = memories[-1]
    clipped = await _search(services, ["tea", "river"], term_postings=2)
    scores = {sketch.id: score for score, sketch in clipped.candidates}
    river = term_contribution(
        "river",
        clipped.term_weights["river"],
        1,
        longest.doc_length,
        clipped.avg_doc_length,
        services.settings,
    )
    # "river" is held once (read whole); "tea" is clipped before the longest memory.
    assert clipped.term_cutoffs.keys() == {"tea"}
    assert scores[longest.id] == pytest.approx(river.contribution)


async def test_explanations_show_the_terms_a_memory_was_too_long_to_get(
    services: Services,
) -> None:
    memories = await _add_all(services, "u")
    bound = {"bm25_term_postings_min": 2, "bm25_term_postings_share": 0.01}
    services.settings = services.settings.model_copy(update=bound)
    hits = await services.recall("u", "tea river", top_k=5, explain=True, track=False)
    by_id = {h.memory.id: h for h in hits}
    longest = by_id[memories[-1].id]
    assert longest.explanation is not None
    terms = {t["term"]: t for t in longest.explanation["relevance"]["matched_terms"]}
    assert terms["tea"]["beyond_cutoff"] is True
    assert terms["tea"]["contribution"] == 0.0
    assert terms["river"]["beyond_cutoff"] is False
    for hit in hits:
        assert hit.explanation is not None
        parts = hit.explanation["relevance"]["matched_terms"]
        assert sum(t["contribution"] for t in parts) == pytest.approx(hit.bm25)
