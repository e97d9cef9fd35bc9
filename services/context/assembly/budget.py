"""ContextBudgetManager (seed 001 §2): one token budget split into sections.

The seed's split of the total: conversation history 30%, private memories 50%, system
instructions 15%, reserve 5% (``CONTEXT_SHARE_*``). Allocations are floored and the
rounding remainder goes to the reserve, so they always add up to exactly the total.

Tokens are counted by :mod:`services.context.shared.tokens` (seed 001 §2.2: CJK characters and
Latin words counted separately, or tiktoken when installed and cached); the manager only
does the bookkeeping. Two rules hold at every step:

- a section never uses more than it is allocated (:meth:`add` refuses);
- allocations never add up to more than the total (:meth:`reallocate` and :meth:`move`
  raise :class:`BudgetExceeded`), so the sum of usage never exceeds the total either.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from services.core.settings import Settings

Section = Literal["history", "memories", "system", "reserve"]
SECTIONS: Final[tuple[Section, ...]] = ("history", "memories", "system", "reserve")
DEFAULT_SHARES: Final[dict[Section, float]] = {
    "history": 0.30,  # 对话历史
    "memories": 0.50,  # 私域知识
    "system": 0.15,  # 系统指令
    "reserve": 0.05,  # 预留空间
}


class BudgetExceeded(ValueError):
    """A reallocation would allocate more than the total budget."""


@dataclass(frozen=True)
class SectionUsage:
    """One section's allocation and what it used (seed ``getUsage``)."""

    allocated: int
    used: int

    @property
    def percentage(self) -> float:
        """Used / allocated in percent (0 for an empty allocation)."""
        return round(100.0 * self.used / self.allocated, 1) if self.allocated else 0.0

    @property
    def free(self) -> int:
        """Tokens still available in the section."""
        return self.allocated - self.used


def shares_from_settings(settings: Settings) -> dict[Section, float]:
    """The ``CONTEXT_SHARE_*`` settings as a section → share map."""
    return {
        "history": settings.context_share_history,
        "memories": settings.context_share_memories,
        "system": settings.context_share_system,
        "reserve": settings.context_share_reserve,
    }


class ContextBudgetManager:
    """Allocation and usage per section of one context; see the module docstring."""

    def __init__(self, total: int, shares: Mapping[Section, float] = DEFAULT_SHARES) -> None:
        if total < 0:
            raise ValueError("the total budget must not be negative")
        if any(shares.get(s, 0.0) < 0 for s in SECTIONS):
            raise ValueError("shares must not be negative")
        if sum(shares.get(s, 0.0) for s in SECTIONS) > 1.0 + 1e-9:
            raise BudgetExceeded("the shares add up to more than 1")
        self.total = total
        self._allocated: dict[Section, int] = {
            s: math.floor(total * shares.get(s, 0.0) + 1e-9) for s in SECTIONS
        }
        self._allocated["reserve"] += total - sum(self._allocated.values())
        self._used: dict[Section, int] = dict.fromkeys(SECTIONS, 0)

    def allocation(self, section: Section) -> int:
        """Tokens allocated to ``section``."""
        return self._allocated[section]

    def used(self, section: Section) -> int:
        """Tokens ``section`` has used."""
        return self._used[section]

    def free(self, section: Section) -> int:
        """Tokens ``section`` may still add."""
        return self._allocated[section] - self._used[section]

    def can_add(self, section: Section, tokens: int) -> bool:
        """Whether ``tokens`` more fit in ``section`` (seed ``canAddToContext``)."""
        return tokens >= 0 and self._used[section] + tokens <= self._allocated[section]

    def add(self, section: Section, tokens: int) -> bool:
        """Count ``tokens`` against ``section``; False (and nothing counted) if they do not
        fit (seed ``addToContext``)."""
        if not self.can_add(section, tokens):
            return False
        self._used[section] += tokens
        return True

    def release(self, section: Section, tokens: int) -> None:
        """Give back tokens ``section`` counted but no longer uses."""
        if not 0 <= tokens <= self._used[section]:
            raise ValueError(f"{section} has not used {tokens} tokens")
        self._used[section] -= tokens

    def reallocate(self, allocations: Mapping[Section, int]) -> None:
        """Set new allocations for some sections (seed ``reallocateBudget``).

        Refuses (BudgetExceeded, nothing changed) when the new allocations add up to more
        than the total, or when a section would be allocated less than it already uses.
        """
        merged = {**self._allocated, **allocations}
        if any(v < 0 for v in merged.values()):
            raise BudgetExceeded("an allocation must not be negative")
        if sum(merged.values()) > self.total:
            raise BudgetExceeded(
                f"allocations add up to {sum(merged.values())}, over the total {self.total}"
            )
        for section, value in merged.items():
            if value < self._used[section]:
                raise BudgetExceeded(f"{section} already uses {self._used[section]} > {value}")
        self._allocated = merged

    def move(self, source: Section, target: Section, tokens: int | None = None) -> int:
        """Move ``tokens`` (default: all of them) of ``source``'s free allocation to
        ``target``; returns how many moved. The total never changes."""
        amount = self.free(source) if tokens is None else tokens
        if amount < 0 or amount > self.free(source):
            raise BudgetExceeded(f"{source} has only {self.free(source)} free tokens")
        self._allocated[source] -= amount
        self._allocated[target] += amount
        return amount

    def remaining(self) -> int:
        """Total minus everything used (seed ``getRemainingBudget``)."""
        return self.total - sum(self._used.values())

    def usage(self) -> dict[Section, SectionUsage]:
        """Allocation and usage per section (seed ``getUsage``)."""
        return {s: SectionUsage(self._allocated[s], self._used[s]) for s in SECTIONS}
