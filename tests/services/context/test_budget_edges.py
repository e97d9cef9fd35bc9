"""ContextBudgetManager at the edges: zero, exactly full, partial shares, and what each
refusal says (anchored: a message is shown to callers). test_budget.py checks the
ordinary cases; these are the ones where ``<`` and ``<=`` differ, which `make mutation`
found unchecked."""

from __future__ import annotations

import pytest

from services.context.assembly.budget import (
    DEFAULT_SHARES,
    SECTIONS,
    BudgetExceeded,
    ContextBudgetManager,
    shares_from_settings,
)
from services.core.settings import Settings


def _allocations(budget: ContextBudgetManager) -> list[int]:
    return [budget.allocation(s) for s in SECTIONS]


def test_the_settings_shares_are_the_seeds_split_by_section() -> None:
    shares = shares_from_settings(Settings(_env_file=None))
    assert shares == DEFAULT_SHARES
    assert _allocations(ContextBudgetManager(1000, shares)) == [300, 500, 150, 50]


def test_a_zero_budget_is_valid_and_holds_nothing_but_zero() -> None:
    budget = ContextBudgetManager(0)
    assert _allocations(budget) == [0, 0, 0, 0]
    assert budget.can_add("memories", 0)
    assert budget.add("memories", 0)
    assert not budget.can_add("memories", 1)
    with pytest.raises(ValueError, match=r"^the total budget must not be negative$"):
        ContextBudgetManager(-1)


def test_missing_shares_count_as_zero_and_the_remainder_is_the_reserve() -> None:
    budget = ContextBudgetManager(100, {"history": 0.5})
    assert _allocations(budget) == [50, 0, 0, 50]
    # Float noise over 1.0 is tolerated; a real excess is not.
    assert _allocations(ContextBudgetManager(100, {"history": 1.0 + 1e-9})) == [100, 0, 0, 0]
    with pytest.raises(ValueError, match=r"^shares must not be negative$"):
        ContextBudgetManager(100, {"history": -0.1})
    with pytest.raises(BudgetExceeded, match=r"^the shares add up to more than 1$"):
        ContextBudgetManager(100, {"history": 0.6, "memories": 0.5})


def test_usage_accumulates_and_a_section_can_be_filled_and_emptied_exactly() -> None:
    budget = ContextBudgetManager(1000)  # history: 300
    assert budget.add("history", 100)
    assert budget.add("history", 200)
    assert budget.used("history") == 300  # full to the token
    assert not budget.add("history", 1)
    budget.release("history", 0)
    budget.release("history", 300)
    assert budget.used("history") == 0
    with pytest.raises(ValueError, match="history has not used 1 tokens"):
        budget.release("history", 1)
    with pytest.raises(ValueError, match="has not used -1 tokens"):
        budget.release("history", -1)


def test_reallocation_may_empty_a_section_or_match_its_use_exactly() -> None:
    budget = ContextBudgetManager(1000)
    budget.add("history", 120)
    budget.reallocate({"reserve": 0, "history": 120})
    assert _allocations(budget) == [120, 500, 150, 0]
    with pytest.raises(BudgetExceeded, match=r"^an allocation must not be negative$"):
        budget.reallocate({"system": -1})
    with pytest.raises(BudgetExceeded, match="allocations add up to 1001, over the total 1000"):
        budget.reallocate({"memories": 731})
    with pytest.raises(BudgetExceeded, match="history already uses 120 > 119"):
        budget.reallocate({"history": 119})
    with pytest.raises(BudgetExceeded, match="memories has only 500 free tokens"):
        budget.move("memories", "system", 501)
    assert _allocations(budget) == [120, 500, 150, 0]
