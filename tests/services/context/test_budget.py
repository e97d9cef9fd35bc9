"""ContextBudgetManager: the seed 001 §2 split, bookkeeping and re-allocation limits."""

from __future__ import annotations

import pytest

from services.context.assembly.budget import BudgetExceeded, ContextBudgetManager
from services.core.settings import Settings


def test_default_split_is_the_seeds_and_adds_up_to_the_total() -> None:
    budget = ContextBudgetManager(4000)
    assert {s: budget.allocation(s) for s in ("history", "memories", "system", "reserve")} == {
        "history": 1200,
        "memories": 2000,
        "system": 600,
        "reserve": 200,
    }
    odd = ContextBudgetManager(1001)
    assert sum(odd.allocation(s) for s in ("history", "memories", "system", "reserve")) == 1001


def test_add_refuses_what_does_not_fit_and_usage_reports_it() -> None:
    budget = ContextBudgetManager(1000)
    assert budget.add("system", 100)
    assert not budget.add("system", 60)  # 150 allocated, 100 used
    assert budget.used("system") == 100
    usage = budget.usage()["system"]
    assert (usage.allocated, usage.used, usage.percentage, usage.free) == (150, 100, 66.7, 50)
    assert budget.remaining() == 900
    budget.release("system", 40)
    assert budget.used("system") == 60
    with pytest.raises(ValueError, match="has not used"):
        budget.release("system", 61)


def test_reallocation_over_the_total_is_refused_and_changes_nothing() -> None:
    budget = ContextBudgetManager(1000)
    with pytest.raises(BudgetExceeded):
        budget.reallocate({"memories": 700})  # 300 + 700 + 150 + 50 > 1000
    assert budget.allocation("memories") == 500
    budget.reallocate({"memories": 600, "history": 200})
    assert budget.allocation("memories") == 600
    budget.add("history", 150)
    with pytest.raises(BudgetExceeded):
        budget.reallocate({"history": 100})  # below what it already uses
    with pytest.raises(BudgetExceeded):
        budget.reallocate({"reserve": -1})


def test_move_shifts_only_free_tokens_and_keeps_the_total() -> None:
    budget = ContextBudgetManager(1000)
    budget.add("memories", 200)
    assert budget.move("memories", "history") == 300
    assert (budget.allocation("memories"), budget.allocation("history")) == (200, 600)
    with pytest.raises(BudgetExceeded):
        budget.move("memories", "history", 1)
    assert sum(u.allocated for u in budget.usage().values()) == 1000


def test_shares_over_one_are_rejected_by_settings_and_manager() -> None:
    with pytest.raises(ValueError, match="more than 1"):
        Settings(_env_file=None, context_share_memories=0.9)
    with pytest.raises(BudgetExceeded):
        ContextBudgetManager(100, {"history": 0.6, "memories": 0.6})
