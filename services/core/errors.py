"""Domain errors: each carries its machine code and HTTP status; api/errors.py renders them."""

from __future__ import annotations

from typing import Any


class DomainError(Exception):
    """Base of every error a caller can act on."""

    code = "error"
    status_code = 400
    # Seconds the client should wait before retrying (a ``Retry-After`` header), if any.
    retry_after: int | None = None

    def __init__(self, message: str, *, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class InvalidInput(DomainError):
    """The request is well-formed JSON but its values make no sense."""

    code = "invalid_input"
    status_code = 422


class NotReady(DomainError):
    """The database is down or its schema is behind the service's (run the migrations)."""

    code = "not_ready"
    status_code = 503


class MemoryNotFound(DomainError):
    """No such memory for this user (another user's memory looks the same)."""

    code = "memory_not_found"
    status_code = 404

    def __init__(self, memory_id: int, *more: int) -> None:
        if more:
            listed = ", ".join(str(i) for i in (memory_id, *more))
            super().__init__(f"memories {listed} not found")
        else:
            super().__init__(f"memory {memory_id} not found")


class UserNotFound(DomainError):
    """The user has no memories."""

    code = "user_not_found"
    status_code = 404

    def __init__(self, user_id: str) -> None:
        super().__init__(f"user {user_id!r} has no memories")


class DuplicateContent(DomainError):
    """An update would make a memory identical to another memory of the same user."""

    code = "duplicate_content"
    status_code = 409


class Unauthorized(DomainError):
    """No or an unknown bearer key."""

    code = "unauthorized"
    status_code = 401


class Forbidden(DomainError):
    """A valid key without the right to this route."""

    code = "forbidden"
    status_code = 403


class SupersedeCycle(DomainError):
    """Superseding would make a memory (indirectly) supersede itself."""

    code = "supersede_cycle"
    status_code = 409


class NotSuperseded(DomainError):
    """Restore of a memory that nothing superseded."""

    code = "not_superseded"
    status_code = 409


class EmbeddingBusy(DomainError):
    """One caller already has as many query embeddings in flight as it may
    (``EMBEDDING_QUERIES_PER_PERSON``): refused at once, so it cannot crowd the engine
    that every other caller's recall shares; a retry once one of them is done succeeds."""

    code = "embedding_busy"
    status_code = 429
    retry_after = 1


class DatabaseBusy(DomainError):
    """The database could not serve this request now: a lock another transaction held
    past ``DB_LOCK_TIMEOUT_MS``, or a deadlock or serialization conflict it lost. Its
    transaction was rolled back, so nothing of it was written; a retry may succeed."""

    code = "database_busy"
    status_code = 503


class Gone(DomainError):
    """A route that was removed; the message names its replacement."""

    code = "gone"
    status_code = 410


class InvalidExport(DomainError):
    """A person's export that cannot be imported as it is: not the format, another
    version, cut short, or naming what it does not hold. Nothing of it was written."""

    code = "invalid_export"
    status_code = 422


class UserNotEmpty(DomainError):
    """An import into a person who already has memories: it would mix two people's
    data (erase them first, or import into another user id)."""

    code = "user_not_empty"
    status_code = 409


class TooLarge(DomainError):
    """A request body over the size this deployment reads (a setting names it)."""

    code = "too_large"
    status_code = 413
