"""When to send a request again: only after 503 ``database_busy`` (nothing was written)."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from jarvis_memory_client.errors import DatabaseBusyError, JarvisMemoryError, error_from


@dataclass(frozen=True)
class RetryPolicy:
    """``max_retries`` more attempts after a busy answer, each after ``Retry-After``
    seconds (else 0.5, 1, 2... seconds), never longer than ``max_wait``."""

    max_retries: int = 3
    max_wait: float = 30.0

    def wait(self, error: JarvisMemoryError, attempt: int) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None to give up."""
        if not isinstance(error, DatabaseBusyError) or attempt >= self.max_retries:
            return None
        seconds = error.retry_after if error.retry_after is not None else 0.5 * 2**attempt
        return min(seconds, self.max_wait)


def outcome(response: httpx.Response) -> JarvisMemoryError | None:
    """The typed error of an error answer, None for a success."""
    return None if response.is_success else error_from(response)
