"""When the embedding backfill should run: soon after a write left memories without
vectors, and once more when such a write lands while it runs.

A write tells :meth:`BackfillNudges.nudge` after its unit of work has committed
(services/core/db.py ``after_commit``), so a run that starts then can read what it
wrote. While no run is under way a nudge asks for one ``EMBEDDING_BACKFILL_DELAY``
seconds later (``soon``, which the scheduler sets; services/scoring/scheduler.py). While
one is, it only marks the run: the run takes the mark after each batch and reads from the
newest memory again (services/embeddings/jobs.py), and a mark still there when the run ends
(or when it found another process's run holding the lock) asks for the next run soon.
So no nudge is dropped, however long a batch takes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager


def _nothing() -> None:
    """No scheduler to tell (the CLI, tests, the evals)."""


class BackfillNudges:
    """One process's nudges of its embedding backfill."""

    def __init__(self) -> None:
        self.soon: Callable[[], None] = _nothing
        self.pending = False  # a write was committed that no run has read since
        self._runs = 0

    @property
    def running(self) -> bool:
        """Whether a run of this process is under way."""
        return self._runs > 0

    def nudge(self) -> None:
        """A committed write left memories without vectors."""
        self.pending = True
        if not self.running:
            self.soon()

    def take(self) -> bool:
        """Whether a write was committed since the last take; clears the mark. A run calls
        it just before it reads, so whatever it returns True for, that read sees."""
        pending, self.pending = self.pending, False
        return pending

    @contextmanager
    def run(self) -> Iterator[None]:
        """Mark a run under way; when it ends, a nudge it did not serve asks for the next."""
        self._runs += 1
        try:
            yield
        finally:
            self._runs -= 1
            if self.pending and not self.running:
                self.soon()
