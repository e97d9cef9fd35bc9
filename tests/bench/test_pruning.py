"""``python -m bench.pruning`` on a small tenant, on both databases."""

from __future__ import annotations

import pytest

from bench.pruning import main, measure, render
from tests.db_backends import postgres_server_url

BACKENDS = ["sqlite"] + (["postgresql"] if postgres_server_url() else [])


@pytest.mark.parametrize("backend", BACKENDS)
async def test_each_bound_is_timed_and_compared_with_the_unpruned_top(backend: str) -> None:
    # At 300 memories a bound of 5 postings prunes every common topic word.
    memories, outcomes = await measure(
        backend, 300, queries=6, bounds=[(5, 0.01), (1000, 0.01)], pg_server=postgres_server_url()
    )
    unpruned, tight, loose = outcomes
    assert memories > 250
    asked = len(unpruned.seconds)
    assert 1 <= asked <= 6
    for outcome in outcomes:
        assert len(outcome.seconds) == len(outcome.bm25_top) == len(outcome.recall_top) == asked
        assert all(t > 0 for t in outcome.seconds)
    # Unpruned against itself, and a bound above every term's count, keep the whole top.
    for outcome in (unpruned, loose):
        assert outcome.bm25_top == [1.0] * asked
        assert outcome.recall_top == [1.0] * asked
    # Five postings per term cannot keep the top 10 of a query on a common topic.
    assert min(tight.bm25_top) < 1.0
    text = render("tenant-300", backend, memories, outcomes)
    assert text.splitlines()[1].lstrip().startswith("unpruned")
    assert "min 5, share 0.01" in text


def test_the_command_line_prints_a_line_per_bound(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--backend", "sqlite", "--tenant", "200", "--queries", "2", "--bound", "5,0.01"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("BM25 statement on tenant-200 (sqlite")
    assert "min 5, share 0.01" in out
