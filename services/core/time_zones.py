"""People's time zones: the IANA names a person's days are counted in.

A person with no zone set counts in UTC, what the service did before zones existed. A
zone is checked against this host's zone database when it is set; one a host does not
know when it is read (hosts of one deployment with different tzdata) is counted in UTC,
with a warning, rather than failing the person's every recall.
"""

from __future__ import annotations

import logging
from datetime import UTC, tzinfo
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from services.core.errors import InvalidInput

log = logging.getLogger(__name__)

MAX_TIME_ZONE_CHARS = 64


def check_time_zone(name: str) -> ZoneInfo:
    """An IANA time zone name (``Asia/Shanghai``, ``Europe/London``, ``UTC``) this host's
    zone database knows, as the zone; 422 ``invalid_input`` otherwise."""
    if not name or len(name) > MAX_TIME_ZONE_CHARS or name.startswith(("/", ".")):
        raise InvalidInput(f"time_zone must be an IANA time zone name, not {name[:64]!r}")
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InvalidInput(
            f"time_zone {name!r} is not a time zone this server knows (an IANA name such "
            "as Asia/Shanghai or Europe/London)"
        ) from exc


def person_zone(name: str | None) -> tzinfo:
    """The zone of a stored name: UTC for none, or for one this host does not know."""
    if name is None:
        return UTC
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        log.warning("time zone %r is unknown on this host: counting days in UTC", name)
        return UTC
