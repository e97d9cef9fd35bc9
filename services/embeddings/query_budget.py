"""Recall's query embeddings, budgeted per person so no caller can crowd the engine.

Every recall with the semantic signal embeds its query, and every embedding of a process
shares one engine (the bundled model's FIFO lock, services/embeddings/bundled_e5.py, or
the provider's capacity). A client that sends queries as fast as it can would fill that
queue and every other person's recall would wait behind it. So each person (the user
whose memories are recalled) may have at most ``EMBEDDING_QUERIES_PER_PERSON`` query
embeddings in flight in a process; one more is refused at once with
:class:`~services.core.errors.EmbeddingBusy` (429 ``embedding_busy`` with
``Retry-After``) rather than queued: a queue per person would still hold the engine for
the flood, and a refusal costs nothing. The flood's own recalls in flight finish; other
people's never wait for more than the few in flight ahead of them.

Counted per person rather than per key: keys reach users by prefix and carry no identity
of their own into recall. A key that recalls for many people gets a budget for each.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from services.core.errors import EmbeddingBusy


class QueryBudget:
    """Query embeddings in flight per person, at most ``per_person`` each.

    Used from one event loop: the check and the count happen with no ``await`` between
    them, so no lock is needed.
    """

    def __init__(self, per_person: int) -> None:
        self.per_person = per_person
        self._in_flight: dict[str, int] = {}

    def in_flight(self, user_id: str) -> int:
        """How many query embeddings of ``user_id`` are under way now."""
        return self._in_flight.get(user_id, 0)

    @contextmanager
    def hold(self, user_id: str) -> Iterator[None]:
        """One of ``user_id``'s slots while the block runs; raises
        :class:`EmbeddingBusy` when all are taken."""
        held = self.in_flight(user_id)
        if held >= self.per_person:
            raise EmbeddingBusy(
                f"{held} query embeddings for this user are already under way "
                f"(EMBEDDING_QUERIES_PER_PERSON); retry when one is done",
                details={"in_flight": held, "limit": self.per_person},
            )
        self._in_flight[user_id] = held + 1
        try:
            yield
        finally:
            left = self._in_flight[user_id] - 1
            if left:
                self._in_flight[user_id] = left
            else:
                del self._in_flight[user_id]
