"""``python -m bench.diagnose`` on a small tenant: every recall split, on both databases."""

from __future__ import annotations

import pytest

from bench.diagnose import OUTSIDE, diagnose, main, statement_label
from tests.db_backends import postgres_server_url

BACKENDS = ["sqlite"] + (["postgresql"] if postgres_server_url() else [])


def test_statements_are_labelled_by_what_they_read() -> None:
    assert statement_label("WITH u AS (...) SELECT ... FROM memory_terms AS t") == "bm25"
    assert statement_label("SELECT $1::BIGINT AS anchor_id, ...") == "neighbours"
    assert statement_label("SELECT user_memories.id FROM user_memories WHERE") == "memories"
    assert statement_label("SELECT   1\n  FROM  somewhere") == "SELECT 1 FROM somewhere"
    assert statement_label("WITH counted AS \n(UPDATE user_memories SET ...") == "count"
    assert (
        statement_label("UPDATE user_memories SET recall_count=(user_memories.recall_count + ?)")
        == "count"
    )
    assert statement_label("INSERT INTO memory_score_history (user_id) SELECT ...") == "history"
    assert statement_label("UPDATE user_memories SET frequency_score=scored.frequency") == "rescore"


@pytest.mark.parametrize("backend", BACKENDS)
async def test_every_recall_is_split_into_its_statements_and_the_rest(backend: str) -> None:
    result = await diagnose(backend, 300, queries=4, reps=2, pg_server=postgres_server_url())
    assert result.memories > 250
    assert len(result.splits) <= 4  # repeated queries share an entry
    recalls = [s for runs in result.splits.values() for s in runs]
    assert len(recalls) == 8
    for split in recalls:
        # Every bench query has searchable words: one BM25 statement.
        assert split.calls["bm25"] == 1
        assert 0 < sum(split.statements.values()) < split.total
        assert split.outside > 0
    medians = result.medians_ms(recalls)
    assert medians["total"] > medians["bm25"] > 0
    assert medians[OUTSIDE] > 0
    text = result.render(slowest=2)
    assert text.startswith(f"recall on tenant-300 ({backend}")
    assert "bm25" in text
    assert OUTSIDE in text
    assert text.count("  '") == 2  # the two slowest queries
    bounds = result.bounds
    assert bounds is not None
    assert min(bounds.floor, bounds.checkout) > 0
    # A statement in a reader costs more than the reader; a whole recall more than both.
    assert bounds.checkout < bounds.least_recall < medians["total"]
    assert "a reader and the BM25 statement, nothing else" in text


@pytest.mark.parametrize("backend", BACKENDS)
async def test_tracked_recalls_split_out_their_counting(backend: str) -> None:
    result = await diagnose(
        backend, 300, queries=3, reps=1, pg_server=postgres_server_url(), track=True
    )
    recalls = [s for runs in result.splits.values() for s in runs]
    # PostgreSQL counts in one statement; SQLite in three, then reads the rows back.
    counting = ("count", "history", "rescore")
    expected = (1, 0, 0) if backend == "postgresql" else (1, 1, 1)
    for split in recalls:
        assert tuple(split.calls[label] for label in counting) == expected
    assert f"{len(recalls)} tracked recalls" in result.render()


def test_the_command_line_prints_the_split(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--backend", "sqlite", "--tenant", "200", "--queries", "2", "--reps", "1"]) == 0
    assert "recall on tenant-200 (sqlite" in capsys.readouterr().out
