"""BM25 on a three-memory corpus, against numbers worked out by hand.

test_bm25_sql.py checks the statement against services/recall/relevance.py; a mistake
shared by both (the idf's +0.5s, k1 + 1, the length norm) would pass it. These
expectations come from the formula alone, with k1 = 1.2 and b = 0.75:

    memories (index terms)                  |d|     N = 3, avgdl = (3 + 2 + 4) / 3 = 3
    d1 "apple apple banana"  appl×2 banana   3
    d2 "apple cherry"        appl cherri     2
    d3 "cherry kiwi lemon mango"             4

    idf(appl) = idf(cherri) = ln(1 + (3 − 2 + 0.5) / (2 + 0.5)) = ln 1.6 = 0.470003629…
    norm(|d|) = k1 · (1 − b + b · |d| / avgdl):  norm(3) = 1.2, norm(2) = 0.9, norm(4) = 1.5
    part(tf, |d|) = idf · tf · (k1 + 1) / (tf + norm(|d|))

    "apple cherry":  d1 = ln 1.6 · 2 · 2.2 / 3.2          = 0.6462549902…
                     d2 = ln 1.6 · 2.2 / 1.9 · 2 (terms)  = 1.0884294572…
                     d3 = ln 1.6 · 2.2 / 2.5              = 0.4136031937…

d2 ranks above d1 although d1 says "apple" twice: it holds both terms and is shorter.
"""

from __future__ import annotations

import pytest

from services.core.settings import Settings
from services.recall.relevance import field_weights, idf, term_contribution
from services.repositories.search import SearchRepository
from services.repositories.statements.bm25_sql import Bm25Query
from tests.factories import Services

LN_1_6 = 0.47000362924573563
D1, D2, D3 = 0.6462549902128865, 1.088429457200651, 0.4136031937362474


async def test_the_bm25_statement_scores_as_worked_out_by_hand(services: Services) -> None:
    d1 = await services.add("u", "apple apple banana")
    d2 = await services.add("u", "apple cherry")
    d3 = await services.add("u", "cherry kiwi lemon mango")
    await services.add("someone-else", "apple apple apple")  # not in u's statistics
    assert [m.doc_length for m in (d1, d2, d3)] == [3, 2, 4]
    s = services.settings
    assert (s.bm25_k1, s.bm25_b) == (1.2, 0.75)
    terms = ["appl", "cherri"]
    async with services.db.unit_of_work() as session:
        found = await SearchRepository(session).bm25_search(
            Bm25Query("u", field_weights(terms, s), s.bm25_k1, s.bm25_b, 10)
        )
    assert found.avg_doc_length == pytest.approx(3.0)
    assert found.term_weights == pytest.approx({"appl": LN_1_6, "cherri": LN_1_6}, rel=1e-12)
    scores = [(sketch.id, score) for score, sketch in found.candidates]
    assert [i for i, _ in scores] == [d2.id, d1.id, d3.id]
    assert [score for _, score in scores] == pytest.approx([D2, D1, D3], rel=1e-9)


def test_the_python_formula_agrees_with_the_hand_values() -> None:
    s = Settings(_env_file=None)
    assert idf(2, 3) == pytest.approx(LN_1_6, rel=1e-12)
    assert term_contribution("appl", LN_1_6, 2, 3, 3.0, s).contribution == pytest.approx(D1)
    assert term_contribution("appl", LN_1_6, 1, 4, 3.0, s).contribution == pytest.approx(D3)
    half = term_contribution("cherri", LN_1_6, 1, 2, 3.0, s).contribution
    assert 2 * half == pytest.approx(D2)
