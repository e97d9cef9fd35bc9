"""The asynchronous client (the same methods as ``JarvisMemory``, awaited)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any, TypeVar, Unpack, cast

import httpx

from jarvis_memory_client import calls
from jarvis_memory_client._retry import RetryPolicy, outcome
from jarvis_memory_client.client import DEFAULT_URL, headers_for
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


class AsyncJarvisMemory:
    """A client of one jarvis-memory service.

    ``api_key`` is a service key (``/v1``) or an admin key (``/v1`` and ``/admin``); none
    when the service runs without keys. Errors raise ``JarvisMemoryError`` subclasses;
    503 ``database_busy`` is retried up to ``max_retries`` times after ``Retry-After``.
    Use it as an async context manager, or await ``aclose()``.
    """

    def __init__(
        self,
        base_url: str = DEFAULT_URL,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        max_retries: int = 3,
        max_retry_wait: float = 30.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.retry = RetryPolicy(max_retries, max_retry_wait)
        self._http = httpx.AsyncClient(
            base_url=base_url, headers=headers_for(api_key), timeout=timeout, transport=transport
        )

    async def __aenter__(self) -> AsyncJarvisMemory:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool."""
        await self._http.aclose()

    async def send(self, call: calls.Call[T]) -> T:
        """Send one call, retrying while the database is busy; its JSON body, typed."""
        attempt = 0
        while True:
            response = await self._http.request(
                call.method, call.path, json=call.json, params=call.params or None
            )
            error = outcome(response)
            if error is None:
                return cast(T, None if response.status_code == 204 else response.json())
            wait = self.retry.wait(error, attempt)
            if wait is None:
                raise error
            await asyncio.sleep(wait)
            attempt += 1

    # /v1: a user's memories

    async def remember(
        self, user_id: str, content: str, **options: Unpack[RememberOptions]
    ) -> Memory:
        """Remember a statement; ``merged`` is true when it repeated a stored memory."""
        return await self.send(calls.remember(user_id, content, options))

    async def remember_many(self, user_id: str, items: list[NewMemory]) -> BatchResult:
        """Remember up to 1,000 statements in order, all or nothing."""
        return await self.send(calls.remember_many(user_id, items))

    async def list_memories(
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
        return await self.send(call)

    async def iter_memories(
        self,
        user_id: str,
        *,
        order: Order | None = None,
        page_size: int | None = None,
        types: list[MemoryType] | None = None,
        level: Level | None = None,
        include_superseded: bool | None = None,
    ) -> AsyncIterator[Memory]:
        """Every memory of the listing, following ``next_cursor`` page by page."""
        cursor: str | None = None
        while True:
            page = await self.list_memories(
                user_id,
                order=order,
                limit=page_size,
                cursor=cursor,
                types=types,
                level=level,
                include_superseded=include_superseded,
            )
            for memory in page["items"]:
                yield memory
            cursor = page["next_cursor"]
            if cursor is None:
                return

    async def get_memory(self, user_id: str, memory_id: int) -> Memory:
        """One memory with its scores."""
        return await self.send(calls.get_memory(user_id, memory_id))

    async def update_memory(
        self, user_id: str, memory_id: int, **changes: Unpack[MemoryChanges]
    ) -> Memory:
        """Edit a memory; new content is re-analysed and rescored."""
        return await self.send(calls.update_memory(user_id, memory_id, changes))

    async def forget(self, user_id: str, memory_id: int) -> None:
        """Forget a memory and its links."""
        await self.send(calls.forget(user_id, memory_id))

    async def link(
        self, user_id: str, memory_id: int, target_id: int, *, weight: float | None = None
    ) -> Link:
        """Link two memories of the user; both gain impact."""
        return await self.send(calls.link(user_id, memory_id, target_id, weight))

    async def links(self, user_id: str, memory_id: int) -> list[Link]:
        """Every link of a memory."""
        return await self.send(calls.links(user_id, memory_id))

    async def supersede(self, user_id: str, memory_id: int, by: int) -> Memory:
        """Mark a memory as replaced by the newer memory ``by`` (fact correction)."""
        return await self.send(calls.supersede(user_id, memory_id, by))

    async def restore(self, user_id: str, memory_id: int) -> Memory:
        """Undo a supersede."""
        return await self.send(calls.restore(user_id, memory_id))

    # /v1: recall, escalations, context, messages

    async def recall(
        self, user_id: str, query: str = "", **options: Unpack[RecallOptions]
    ) -> RecallResult:
        """The memories that matter most for ``query``, best first."""
        return await self.send(calls.recall(user_id, query, options))

    async def used(self, user_id: str, ids: list[int]) -> UsedResult:
        """Say which recalled memories the answer used: each counts once (recall with
        ``track=False`` first). An id not of this user refuses the whole call (404)."""
        return await self.send(calls.used(user_id, ids))

    async def escalations(
        self,
        user_id: str,
        *,
        include_acknowledged: bool | None = None,
        include_superseded: bool | None = None,
    ) -> list[Memory]:
        """Memories that crossed into ``high``."""
        call = calls.escalations(user_id, include_acknowledged, include_superseded)
        return await self.send(call)

    async def acknowledge(self, user_id: str, memory_id: int) -> Memory:
        """Mark an escalation as followed up."""
        return await self.send(calls.acknowledge(user_id, memory_id))

    async def context(
        self, user_id: str, messages: list[ChatMessage], budget_tokens: int, **options: Any
    ) -> Json:
        """The messages to send within ``budget_tokens``, the user's memories included
        (``options``: the other fields of ``POST /v1/users/{id}/context``)."""
        return await self.send(calls.context(user_id, messages, budget_tokens, options))

    async def score_messages(
        self, user_id: str, messages: list[ChatMessage], **options: Any
    ) -> Json:
        """A 0-10 importance per message of the user's conversation
        (``POST /v1/users/{id}/messages/score``)."""
        return await self.send(calls.score_messages(user_id, messages, options))

    async def compress_messages(
        self, user_id: str, messages: list[ChatMessage], **options: Any
    ) -> Json:
        """Keep what matters within a count or budget
        (``POST /v1/users/{id}/messages/compress``)."""
        return await self.send(calls.compress_messages(user_id, messages, options))

    # /admin (an admin key)

    async def admin_users(
        self, *, limit: int | None = None, cursor: str | None = None
    ) -> AdminUsers:
        """Users with memory counts and level distribution."""
        return await self.send(calls.admin_users(limit, cursor))

    async def admin_user_memories(
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
        return await self.send(
            calls.admin_user_memories(user_id, order, limit, cursor, types, level)
        )

    async def admin_memory(self, memory_id: int) -> AdminMemory:
        """One memory's contributions, links and score history."""
        return await self.send(calls.admin_memory(memory_id))

    async def admin_jobs(self, *, limit: int | None = None) -> list[JobRun]:
        """Job runs, newest first."""
        return await self.send(calls.admin_jobs(limit))

    async def admin_rescore(self, user_id: str | None = None) -> JobRun:
        """Rescore now (everyone, or one user); the finished run."""
        return await self.send(calls.admin_rescore(user_id))

    async def admin_stats(self) -> Json:
        """Service-wide totals."""
        return await self.send(calls.admin_stats())

    async def admin_message_scores(
        self,
        user_id: str,
        conversation_id: str,
        *,
        limit: int | None = None,
        after: int | None = None,
    ) -> Json:
        """A user's conversation's persisted message scores."""
        return await self.send(calls.admin_message_scores(user_id, conversation_id, limit, after))

    async def admin_compressions(
        self, user_id: str, conversation_id: str, *, limit: int | None = None
    ) -> list[Json]:
        """A user's conversation's compression runs, newest first."""
        return await self.send(calls.admin_compressions(user_id, conversation_id, limit))

    # health

    async def healthz(self) -> Json:
        """The process is up."""
        return await self.send(calls.healthz())

    async def readyz(self) -> Json:
        """The database answers and is migrated (``ServiceUnavailableError`` if not)."""
        return await self.send(calls.readyz())
