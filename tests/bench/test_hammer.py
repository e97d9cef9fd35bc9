"""``python -m bench.hammer`` on a small tenant: every kind of write at once, no error."""

from __future__ import annotations

import pytest

from bench.hammer import MIX, Tally, hammer, main
from tests.db_backends import postgres_server_url

BACKENDS = ["sqlite"] + (["postgresql"] if postgres_server_url() else [])


@pytest.mark.parametrize("backend", BACKENDS)
async def test_concurrent_writes_and_tracked_recalls_of_one_user_all_succeed(
    backend: str,
) -> None:
    tally = await hammer(
        backend, 300, tasks=8, seconds=3.0, seed=11, pg_server=postgres_server_url()
    )
    assert tally.errors == {}, tally.samples
    assert tally.inconsistent == {}
    assert set(tally.done) | set(tally.refused) <= set(MIX)
    assert min(tally.done["add"], tally.done["recall"]) > 0
    assert tally.jobs["rescore succeeded"] >= 1
    assert tally.jobs["reindex"] >= 1


def test_an_error_is_counted_by_kind_type_and_sqlstate() -> None:
    class Driver(Exception):
        sqlstate = "40P01"

    class Wrapped(Exception):
        orig = Driver()

    tally = Tally()
    tally.error("add", Wrapped("deadlock detected\nDETAIL: ..."))
    tally.error("add", ValueError("x"))
    assert tally.errors == {"add: Wrapped 40P01": 1, "add: ValueError": 1}
    assert tally.samples[0] == "add: Wrapped: deadlock detected"


def test_the_command_prints_the_tally_and_exits_zero_without_errors(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--backend", "sqlite", "--tenant", "200", "--tasks", "4", "--seconds", "1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].split() == ["operation", "done", "refused", "errors"]
    assert "errors: 0" in out
