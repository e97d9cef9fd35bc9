"""Long loops on the event loop hand it back now and then.

Whatever runs on the loop between two awaits delays every other request by as long:
the rows of a 1,000-item batch (its postings, its topic links, the answer's 1,000
memories) took 70-210 ms of CPU each in one stretch. CPU-heavy steps go to a
worker thread; what must stay on the loop (building SQL parameters, reading ORM rows,
shaping the answer) goes in steps of ``STEP`` items with a yield between them.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import TypeVar

T = TypeVar("T")

STEP = 200


async def paced(items: Iterable[T], step: int = STEP) -> AsyncIterator[T]:
    """``items``, letting other tasks run after every ``step`` of them."""
    for index, item in enumerate(items):
        if index and index % step == 0:
            await asyncio.sleep(0)
        yield item


def chunks(items: list[T], size: int = STEP) -> list[list[T]]:
    """``items`` in consecutive lists of at most ``size``."""
    return [items[start : start + size] for start in range(0, len(items), size)]
