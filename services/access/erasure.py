"""Erasing a person: everything the service holds of one user, in one transaction.

``DELETE /v1/users/{user_id}``, ``jarvis-memory users erase USER`` and the console's
erase button all come here (GDPR article 17). What goes: the memories and all
that is derived from them (vectors, postings, topics, term statistics, links, score
history), the message scores and compressions of the person's conversations, the job
runs recorded for them, their ``memory_users`` row, and the API keys bound to exactly
that user (``prefix:USER``). What the process holds in memory of them (cached vectors,
cached recalls) is dropped too.

Idempotent: erasing someone the service does not know (again) succeeds and reports
zero of everything. The caller's unit of work commits; nothing here commits.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from services.core.validation import check_user_id
from services.repositories.erasure import KINDS, ErasureRepository

# What forgets a user in one of the process's caches (the vector cache, the recalls).
Forget = Callable[[str], None]


@dataclass(frozen=True)
class Erased:
    """What an erasure removed, per kind (every kind of ``KINDS``, 0 when none)."""

    user_id: str
    counts: dict[str, int]

    @property
    def total(self) -> int:
        """Rows removed in all (conversations are counted, not rows)."""
        return sum(n for kind, n in self.counts.items() if kind != "conversations")


class PersonEraser:
    """Erases people over one session."""

    def __init__(self, session: AsyncSession, caches: Sequence[Forget] = ()) -> None:
        self.repository = ErasureRepository(session)
        self.caches = list(caches)

    async def erase(self, user_id: str) -> Erased:
        """Remove everything of ``user_id``; what was removed."""
        check_user_id(user_id)
        await self.repository.hold_user(user_id)
        found = await self.repository.erase(user_id)
        # Dropped before the commit: what another request caches meanwhile is keyed by
        # data that no longer exists (the vectors' signature, the user's write version,
        # which starts afresh at random: MemoryRepository.lock_user) and is never served.
        for forget in self.caches:
            forget(user_id)
        return Erased(user_id, {kind: found.get(kind, 0) for kind in KINDS})
