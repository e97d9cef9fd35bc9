"""An exclusive, non-blocking lock on a file, held for a block: one holder at a time among
every process (and every open of the file within one process) on the machine."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def try_file_lock(path: Path) -> Iterator[bool]:
    """Hold ``flock(LOCK_EX)`` on ``path`` (created if missing) for the block; yields
    False at once, holding nothing, when another holder has it.

    The kernel releases the lock when its file is closed, so a process that dies (even
    by ``kill -9``) leaves no stale lock behind, which a lock row in the database would.
    Each call opens the file anew: two calls in one process exclude each other too.
    """
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
