"""The BM25 statement and the one-round-trip corpus statistics, on both databases."""

from __future__ import annotations

import pytest

from services.relevance import term_contribution, term_weights
from services.repositories.bm25_sql import Bm25Query
from services.repositories.search import SearchRepository
from tests.factories import Services


async def test_corpus_statistics_reads_the_user_row_and_the_known_terms(
    services: Services,
) -> None:
    await services.add("u", "coffee with Anna at the harbour")
    await services.add("u", "coffee beans from Kenya")
    await services.add("other", "coffee coffee coffee")
    async with services.db.unit_of_work() as session:
        repo = SearchRepository(session)
        stats = await repo.corpus_statistics("u", ["coffe", "kenya", "unknown"])
        nobody = await repo.corpus_statistics("nobody", ["coffe"])
        no_terms = await repo.corpus_statistics("u", [])
    assert stats.memory_count == 2
    assert stats.total_doc_length > 0
    assert stats.document_frequencies == {"coffe": 2, "kenya": 1}
    assert (nobody.memory_count, nobody.document_frequencies) == (0, {})
    assert (no_terms.memory_count, no_terms.document_frequencies) == (2, {})


async def test_bm25_sums_each_terms_contribution_and_returns_the_ranking_columns(
    services: Services,
) -> None:
    kenya = await services.add("u", "coffee beans from Kenya, coffee every morning")
    anna = await services.add("u", "coffee with Anna", memory_type="event")
    await services.add("u", "tea in the garden")
    await services.add("other", "coffee beans from Kenya")
    s = services.settings
    async with services.db.unit_of_work() as session:
        repo = SearchRepository(session)
        stats = await repo.corpus_statistics("u", ["coffe", "kenya"])
        weights = term_weights(stats.document_frequencies, stats.memory_count, s)
        avgdl = stats.total_doc_length / stats.memory_count
        query = Bm25Query("u", weights, k1=s.bm25_k1, b=s.bm25_b, avg_doc_length=avgdl, limit=10)
        found = await repo.bm25_candidates(query)
        events = await repo.bm25_candidates(
            Bm25Query("u", weights, s.bm25_k1, s.bm25_b, avgdl, 10, types=["event"])
        )
        postings = await repo.postings("u", [kenya.id], list(weights))
    assert [sketch.id for _, sketch in found] == [kenya.id, anna.id]
    assert [sketch.id for _, sketch in events] == [anna.id]
    top_score, top = found[0]
    assert (top.content, top.memory_type) == (kenya.content, kenya.memory_type)
    expected = sum(
        term_contribution(p.term, weights[p.term], p.tf, p.doc_length, avgdl, s).contribution
        for p in postings
    )
    assert top_score == pytest.approx(expected)
