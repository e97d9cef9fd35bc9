"""Typed errors from the service's one error shape, ``{"error": {code, message, details?}}``."""

from __future__ import annotations

from typing import Any

import httpx


class JarvisMemoryError(Exception):
    """An error answer of the service: its HTTP status, ``code``, ``message`` and ``details``."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        details: Any = None,
        response: httpx.Response | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.response = response


class AuthenticationError(JarvisMemoryError):
    """401: no key, or a key the service does not know."""


class PermissionDeniedError(JarvisMemoryError):
    """403: a service key on an admin route, or a request from off loopback without keys."""


class NotFoundError(JarvisMemoryError):
    """404: no such memory for this user (or no such route)."""


class ConflictError(JarvisMemoryError):
    """409: the request contradicts the stored state (``supersede_cycle``...)."""


class InvalidInputError(JarvisMemoryError):
    """422 ``invalid_input``: ``details`` lists every field that was refused."""


class DatabaseBusyError(JarvisMemoryError):
    """503 ``database_busy``: nothing was written; retried by the client (``max_retries``)."""

    def __init__(self, *args: Any, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.retry_after = retry_after


class ServiceUnavailableError(JarvisMemoryError):
    """503 other than contention, e.g. ``not_ready``: the database is down or not migrated."""


class ServerError(JarvisMemoryError):
    """500 ``internal_error`` and any other 5xx."""


_BY_STATUS: dict[int, type[JarvisMemoryError]] = {
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    422: InvalidInputError,
}


def retry_after(response: httpx.Response) -> float | None:
    """``Retry-After`` in seconds (the service sends a number of seconds), else None."""
    value = response.headers.get("Retry-After")
    try:
        seconds = float(value) if value is not None else None
    except ValueError:
        return None  # an HTTP date: the service never sends one
    return None if seconds is None or seconds < 0 else seconds


def error_from(response: httpx.Response) -> JarvisMemoryError:
    """The typed error for an error answer (4xx or 5xx)."""
    code, message, details = "http_error", response.reason_phrase or "error", None
    try:
        body = response.json()["error"]
        code, message, details = str(body["code"]), str(body["message"]), body.get("details")
    except (ValueError, KeyError, TypeError):
        pass  # not the service's shape (a proxy in between): the status says what it can
    status = response.status_code
    if status == 503 and code == "database_busy":
        return DatabaseBusyError(
            status, code, message, details, response, retry_after=retry_after(response)
        )
    if status == 503:
        return ServiceUnavailableError(status, code, message, details, response)
    kind = _BY_STATUS.get(status, ServerError if status >= 500 else JarvisMemoryError)
    return kind(status, code, message, details, response)
