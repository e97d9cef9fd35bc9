"""How a long command reports its progress, without the services knowing who watches.

The CLI passes a progress bar (api/cli/progress.py); everyone else gets
:data:`NO_PROGRESS`, which does nothing.
"""

from __future__ import annotations

from typing import Protocol


class Progress(Protocol):
    """Told how much work there is, then how much of it is done."""

    def start(self, total: int | None) -> None:
        """The work begins: ``total`` units, or None when not known in advance."""

    def advance(self, amount: int = 1) -> None:
        """``amount`` more units are done."""


class _NoProgress:
    def start(self, total: int | None) -> None:
        return None

    def advance(self, amount: int = 1) -> None:
        return None


NO_PROGRESS: Progress = _NoProgress()
