"""The BM25 statement and the one-round-trip corpus statistics, on both databases."""

from __future__ import annotations

from typing import Any

import pytest

from services.core.settings import Settings
from services.recall.relevance import field_weights, idf, term_contribution
from services.repositories.search import SearchRepository
from services.repositories.statements.bm25_sql import Bm25Query
from tests.factories import Services


def _query(user_id: str, terms: list[str], s: Settings, **filters: Any) -> Bm25Query:
    """A search for ``terms`` with their field weights and the service's k1, b."""
    return Bm25Query(user_id, field_weights(terms, s), s.bm25_k1, s.bm25_b, 10, **filters)


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
        terms = ["coffe", "kenya", "~unknown"]
        found = await repo.bm25_search(_query("u", terms, s))
        events = await repo.bm25_search(_query("u", terms, s, types=["event"]))
        postings = await repo.postings("u", [kenya.id], ["coffe", "kenya"])
    assert [sketch.id for _, sketch in found.candidates] == [kenya.id, anna.id]
    assert [sketch.id for _, sketch in events.candidates] == [anna.id]
    top_score, top = found.candidates[0]
    assert (top.content, top.memory_type) == (kenya.content, kenya.memory_type)
    # The statistics the statement read are the user's own, and weigh as relevance.idf.
    avgdl = stats.total_doc_length / stats.memory_count
    assert found.avg_doc_length == pytest.approx(avgdl)
    assert found.term_weights == pytest.approx(
        {t: idf(df, stats.memory_count) for t, df in stats.document_frequencies.items()}
    )
    expected = sum(
        term_contribution(
            p.term, found.term_weights[p.term], p.tf, p.doc_length, avgdl, s
        ).contribution
        for p in postings
    )
    assert top_score == pytest.approx(expected)


async def test_bm25_weighs_fallback_terms_by_their_field_weight(services: Services) -> None:
    await services.add("u", "我们讨论了季度报告的安排")
    await services.add("u", "明天去公园散步")
    s = services.settings
    async with services.db.unit_of_work() as session:
        repo = SearchRepository(session)
        stats = await repo.corpus_statistics("u", ["季度", "~季度"])
        found = await repo.bm25_search(_query("u", ["季度", "~季度"], s))
    n, df = stats.memory_count, stats.document_frequencies
    assert found.term_weights == pytest.approx(
        {"季度": idf(df["季度"], n), "~季度": s.bigram_weight * idf(df["~季度"], n)}
    )
    assert len(found.candidates) == 1


async def test_bm25_of_nobody_or_of_no_known_term_finds_nothing(services: Services) -> None:
    await services.add("u", "coffee with Anna at the harbour")
    s = services.settings
    async with services.db.unit_of_work() as session:
        repo = SearchRepository(session)
        nobody = await repo.bm25_search(_query("nobody", ["coffe"], s))
        unknown = await repo.bm25_search(_query("u", ["kenya"], s))
        no_terms = await repo.bm25_search(_query("u", [], s))
    assert (nobody.candidates, nobody.term_weights, nobody.avg_doc_length) == ([], {}, 0.0)
    assert (unknown.candidates, unknown.term_weights) == ([], {})
    assert unknown.avg_doc_length > 0
    assert no_terms.candidates == []
