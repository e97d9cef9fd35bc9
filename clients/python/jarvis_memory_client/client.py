"""The synchronous client."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, TypeVar, Unpack, cast

import httpx

from jarvis_memory_client import calls
from jarvis_memory_client._retry import RetryPolicy, outcome
from jarvis_memory_client.types import (
    AdminMemory,
    AdminUsers,
    BatchResult,
    ChatMessage,
    JobRun,
    Json,
    Level,
    Link,
    Memory,
    MemoryChanges,
    MemoryPage,
    MemoryType,
    NewMemory,
    Order,
    RecallOptions,
    RecallResult,
    RememberOptions,
    UsedResult,
)

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8000"


def headers_for(api_key: str | None) -> dict[str, str]:
    """The bearer header for a service or admin key."""
    return {"Authorization": f"Bearer {api_key}"} if api_key else {}


class JarvisMemory:
    """A client of one jarvis-memory service.

    ``api_key`` is a service key (``/v1``) or an admin key (``/v1`` and ``/admin``); none
    when the service runs without keys. Errors raise ``JarvisMemoryError`` subclasses;
    503 ``database_busy`` is retried up to ``max_retries`` times after ``Retry-After``.
    Use it as a context manager, or call ``close()``.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 30.0,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.retry = RetryPolicy(max_retries, max_retry_wait)
        self._http = httpx.Client(
            base_url=base_url, headers=headers_for(api_key), timeout=timeout, transport=transport
        )

    def __enter__(self) -> JarvisMemory:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def send(self, call: calls.Call[T]) -> T:
        """Send one call, retrying while the database is busy; its JSON body, typed."""
        attempt = 0
        while True:
            response = self._http.request(
                call.method, call.path, json=call.json, params=call.params or None
            )
            error = outcome(response)
            if error is None:
                return cast(T, None if response.status_code == 204 else response.json())
            wait = self.retry.wait(error, attempt)
            if wait is None:
                raise error
            time.sleep(wait)
            attempt += 1

    # /v1: a user's memories

    def remember(self, user_id: str, content: str, **options: Unpack[RememberOptions]) -> Memory:
        """Remember a statement; ``merged`` is true when it repeated a stored memory."""
        return self.send(calls.remember(user_id, content, options))

    def remember_many(self, user_id: str, items: list[NewMemory]) -> BatchResult:
        """Remember up to 1,000 statements in order, all or nothing."""
        return self.send(calls.remember_many(user_id, items))

    def list_memories(
        self,
        user_id: str,
        *,
        order: Order | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        types: list[MemoryType] | None = None,
        level: Level | None = None,
        include_superseded: bool | None = None,
    ) -> MemoryPage:
        """A page of memories, most important (or newest) first."""
        call = calls.list_memories(user_id, order, limit, cursor, types, level, include_superseded)
        return self.send(call)

    def iter_memories(
        self,
        user_id: str,
        *,
        order: Order | None = None,
        page_size: int | None = None,
        types: list[MemoryType] | None = None,
        level: Level | None = None,
        include_superseded: bool | None = None,
    ) -> Iterator[Memory]:
        """Every memory of the listing, following ``next_cursor`` page by page."""
        cursor: str | None = None
        while True:
            page = self.list_memories(
                user_id,
                order=order,
                limit=page_size,
                cursor=cursor,
                types=types,
                level=level,
                include_superseded=include_superseded,
            )
            yield from page["items"]
            cursor = page["next_cursor"]
            if cursor is None:
                return

    def get_memory(self, user_id: str, memory_id: int) -> Memory:
        """One memory with its scores."""
        return self.send(calls.get_memory(user_id, memory_id))

    def update_memory(
        self, user_id: str, memory_id: int, **changes: Unpack[MemoryChanges]
    ) -> Memory:
        """Edit a memory; new content is re-analysed and rescored."""
        return self.send(calls.update_memory(user_id, memory_id, changes))

    def forget(self, user_id: str, memory_id: int) -> None:
        """Forget a memory and its links."""
        self.send(calls.forget(user_id, memory_id))

    def link(
        self, user_id: str, memory_id: int, target_id: int, *, weight: float | None = None
    ) -> Link:
        """Link two memories of the user; both gain impact."""
        return self.send(calls.link(user_id, memory_id, target_id, weight))

    def links(self, user_id: str, memory_id: int) -> list[Link]:
        """Every link of a memory."""
        return self.send(calls.links(user_id, memory_id))

    def supersede(self, user_id: str, memory_id: int, by: int) -> Memory:
        """Mark a memory as replaced by the newer memory ``by`` (fact correction)."""
        return self.send(calls.supersede(user_id, memory_id, by))

    def restore(self, user_id: str, memory_id: int) -> Memory:
        """Undo a supersede."""
        return self.send(calls.restore(user_id, memory_id))

    # /v1: recall, escalations, context, messages

    def recall(
        self, user_id: str, query: str = "", **options: Unpack[RecallOptions]
    ) -> RecallResult:
        """The memories that matter most for ``query``, best first."""
        return self.send(calls.recall(user_id, query, options))

    def used(self, user_id: str, ids: list[int]) -> UsedResult:
        """Say which recalled memories the answer used: each counts once (recall with
        ``track=False`` first). An id not of this user refuses the whole call (404)."""
        return self.send(calls.used(user_id, ids))

    def escalations(
        self,
        user_id: str,
        *,
        include_acknowledged: bool | None = None,
        include_superseded: bool | None = None,
    ) -> list[Memory]:
        """Memories that crossed into ``high``."""
        call = calls.escalations(user_id, include_acknowledged, include_superseded)
        return self.send(call)

    def acknowledge(self, user_id: str, memory_id: int) -> Memory:
        """Mark an escalation as followed up."""
        return self.send(calls.acknowledge(user_id, memory_id))

    def context(
        self, user_id: str, messages: list[ChatMessage], budget_tokens: int, **options: Any
    ) -> Json:
        """The messages to send within ``budget_tokens``, the user's memories included
        (``options``: the other fields of ``POST /v1/users/{id}/context``)."""
        return self.send(calls.context(user_id, messages, budget_tokens, options))

    def score_messages(self, user_id: str, messages: list[ChatMessage], **options: Any) -> Json:
        """A 0-10 importance per message of the user's conversation
        (``POST /v1/users/{id}/messages/score``)."""
        return self.send(calls.score_messages(user_id, messages, options))

    def compress_messages(self, user_id: str, messages: list[ChatMessage], **options: Any) -> Json:
        """Keep what matters within a count or budget
        (``POST /v1/users/{id}/messages/compress``)."""
        return self.send(calls.compress_messages(user_id, messages, options))

    # /admin (an admin key)

    def admin_users(self, *, limit: int | None = None, cursor: str | None = None) -> AdminUsers:
        """Users with memory counts and level distribution."""
        return self.send(calls.admin_users(limit, cursor))

    def admin_user_memories(
        self,
        user_id: str,
        *,
        order: Order | None = None,
        limit: int | None = None,
        cursor: str | None = None,
        types: list[MemoryType] | None = None,
        level: Level | None = None,
    ) -> MemoryPage:
        """A user's memories, superseded ones included."""
        return self.send(calls.admin_user_memories(user_id, order, limit, cursor, types, level))

    def admin_memory(self, memory_id: int) -> AdminMemory:
        """One memory's contributions, links and score history."""
        return self.send(calls.admin_memory(memory_id))

    def admin_jobs(self, *, limit: int | None = None) -> list[JobRun]:
        """Job runs, newest first."""
        return self.send(calls.admin_jobs(limit))

    def admin_rescore(self, user_id: str | None = None) -> JobRun:
        """Rescore now (everyone, or one user); the finished run."""
        return self.send(calls.admin_rescore(user_id))

    def admin_stats(self) -> Json:
        """Service-wide totals."""
        return self.send(calls.admin_stats())

    def admin_message_scores(
        self,
        user_id: str,
        conversation_id: str,
        *,
        limit: int | None = None,
        after: int | None = None,
    ) -> Json:
        """A user's conversation's persisted message scores."""
        return self.send(calls.admin_message_scores(user_id, conversation_id, limit, after))

    def admin_compressions(
        self, user_id: str, conversation_id: str, *, limit: int | None = None
    ) -> list[Json]:
        """A user's conversation's compression runs, newest first."""
        return self.send(calls.admin_compressions(user_id, conversation_id, limit))

    # health

    def healthz(self) -> Json:
        """The process is up."""
        return self.send(calls.healthz())

    def readyz(self) -> Json:
        """The database answers and is migrated (``ServiceUnavailableError`` if not)."""
        return self.send(calls.readyz())
