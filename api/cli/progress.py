"""Progress bars for long CLI commands, on standard error and only in a terminal.

A pipe, a file or a cron job gets no bar (nothing to redraw a line on), so ``--json``
output and logs stay clean; the bar never touches standard output.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import TextIO

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class ProgressBar:
    """A :class:`services.core.progress.Progress` drawn by rich while in a ``with``."""

    def __init__(self, label: str, stream: TextIO | None = None) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty()
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> ProgressBar:
        if self.enabled:
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=Console(file=self.stream, force_terminal=True),
            )
            self._bar.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def start(self, total: int | None) -> None:
        if self._bar is not None:
            self._task = self._bar.add_task(self.label, total=total)

    def advance(self, amount: int = 1) -> None:
        if self._bar is not None and self._task is not None:
            self._bar.advance(self._task, amount)
