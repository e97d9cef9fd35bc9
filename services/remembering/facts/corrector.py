"""FactCorrector: newer statements supersede older ones of the same slot (seed 001 §3.4).

After a batch is stored, the new memories that set a slot (services/remembering/facts/slots.py) are
compared with the user's current memories of the same slots; the order rule of
services/remembering/facts/resolve.py decides which is superseded by which. Superseded memories keep
everything (content, scores, links, history): they are only left out of recall and of
the default listing, and point at the memory that replaced them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from services.remembering.facts.resolve import SlotFact, supersessions
from services.remembering.facts.slots import extract_fact
from services.repositories.facts import FactRepository


class FactCorrector:
    """Writes the superseded-by links a batch of new memories implies."""

    def __init__(self, facts: FactRepository) -> None:
        self.facts = facts

    async def correct(
        self, user_id: str, incoming: Sequence[SlotFact], now: datetime
    ) -> dict[int, int]:
        """Supersede what ``incoming`` (new memories, in stated order) replaces.

        Returns old memory id → newer memory id for every link written.
        """
        if not incoming:
            return {}
        rows = await self.facts.current_of_slots(
            user_id, [f.slot for f in incoming], exclude=[f.memory_id for f in incoming]
        )
        current = []
        for row in rows:
            fact = extract_fact(row.content)
            # A memory slotted by an older rule set keeps its slot; its value is unread.
            value = fact.value if fact is not None and fact.slot == row.fact_slot else ""
            current.append(SlotFact(row.id, row.fact_slot, value, row.created_at))
        replaced = supersessions(current, incoming)
        await self.facts.supersede(user_id, replaced, now)
        return replaced
