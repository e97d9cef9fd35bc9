"""Which memory supersedes which: the order rule, free of any database.

Shared by the service's FactCorrector and the bench's bulk loader (bench/load.py), so
both write the same links.

Within one slot, the statement *said* later wins: compared by ``(created_at, id)``, so an
import of old history (``created_at`` in the past) does not replace what the person says
today, and within one batch a later statement supersedes an earlier one. A statement with
the same value as a current memory agrees with it and supersedes nothing (both stay
current); a value that cannot be read ("I have a new manager") differs from every value.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class SlotFact:
    """A memory with a slot: its id, slot, value and when it was said."""

    memory_id: int
    slot: str
    value: str
    created_at: datetime

    @property
    def said(self) -> tuple[datetime, int]:
        """The order of statements: when said, then id (insertion order)."""
        return (self.created_at, self.memory_id)


def supersessions(current: Iterable[SlotFact], incoming: Sequence[SlotFact]) -> dict[int, int]:
    """Old memory id → the id of the memory that supersedes it.

    ``current`` are the stored memories of the slots that are not superseded; ``incoming``
    the new memories in the order they were stated.
    """
    live: dict[str, list[SlotFact]] = {}
    for fact in current:
        live.setdefault(fact.slot, []).append(fact)
    replaced: dict[int, int] = {}
    for fact in incoming:
        others = live.setdefault(fact.slot, [])
        differing = [o for o in others if o.memory_id != fact.memory_id and _differ(o, fact)]
        newer = [o for o in differing if o.said > fact.said]
        if newer:
            # Said before what is already known: history, superseded on arrival.
            replaced[fact.memory_id] = max(newer, key=lambda o: o.said).memory_id
            continue
        for old in differing:
            replaced[old.memory_id] = fact.memory_id
        live[fact.slot] = [o for o in others if o not in differing and o != fact] + [fact]
    return replaced


def _differ(a: SlotFact, b: SlotFact) -> bool:
    return not a.value or not b.value or a.value != b.value
