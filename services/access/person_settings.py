"""A person's settings, kept on their ``memory_users`` row: for now their time zone.

``GET|PATCH /v1/users/{user_id}`` read and change them. The time zone is the IANA name of
the zone the person's days are counted in (services/core/time_zones.py): "yesterday" in
a recall, the date of a memory in a context's memory block. Unset, days are UTC's.

Setting it takes the person's row as every write of their memories does, and counts as a
write (the row's ``write_version``): a recall that context assembly cached for
"yesterday" in the old zone is not served in the new one. Setting it for someone the
service has not met makes their row; erasing the person erases their settings too.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from services.core.clock import Clock
from services.core.time_zones import check_time_zone
from services.core.validation import check_user_id
from services.repositories.memories import MemoryRepository
from services.repositories.person_data import PersonDataRepository


@dataclass(frozen=True)
class PersonSettings:
    """What a person has set."""

    user_id: str
    time_zone: str | None  # None: UTC


class PersonSettingsService:
    """Reads and changes people's settings over one session."""

    def __init__(self, session: AsyncSession, clock: Clock) -> None:
        self.clock = clock
        self.memories = MemoryRepository(session)
        self.people = PersonDataRepository(session)

    async def get(self, user_id: str) -> PersonSettings:
        """The person's settings (the defaults for someone the service has not met)."""
        check_user_id(user_id)
        return PersonSettings(user_id, await self.memories.time_zone(user_id))

    async def set_time_zone(self, user_id: str, time_zone: str | None) -> PersonSettings:
        """Count the person's days in ``time_zone`` (an IANA name; None: UTC)."""
        check_user_id(user_id)
        name = check_time_zone(time_zone).key if time_zone is not None else None
        await self.memories.lock_user(user_id, self.clock())
        await self.people.set_time_zone(user_id, name)
        return PersonSettings(user_id, name)
