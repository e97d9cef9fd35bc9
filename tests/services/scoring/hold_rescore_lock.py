"""``python -m tests.services.scoring.hold_rescore_lock URL HELD RELEASE``: another
process that takes the rescoring lock of the database at URL, writes ``acquired`` or
``taken`` to the file HELD, and holds the lock until the file RELEASE exists."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from services.core.db import build_engine
from services.repositories.dialect.seam import rescore_lock
from tests.timing import scaled


def _announce(held: Path, acquired: bool) -> None:
    held.write_text("acquired" if acquired else "taken")


def _released(release: Path) -> bool:
    return release.exists()


async def hold(url: str, held: Path, release: Path) -> int:
    engine = build_engine(url)
    try:
        async with rescore_lock(engine) as acquired:
            _announce(held, acquired)
            # Only a guard against a test that never releases: the test decides when.
            deadline = time.monotonic() + scaled(120)
            while not _released(release):
                if time.monotonic() > deadline:
                    return 1
                await asyncio.sleep(0.01)
        return 0
    finally:
        await engine.dispose()


if __name__ == "__main__":
    sys.exit(asyncio.run(hold(sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3]))))
