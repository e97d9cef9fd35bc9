"""Every route as a call description, shared by the sync and the async client.

A ``Call`` says which request to send; the clients send it (with retries) and return the
JSON body typed as the route answers it. Options a caller leaves out are not sent, so the
service's defaults (its settings) apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar
from urllib.parse import quote

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
Params = dict[str, str | int | bool | list[str]]


@dataclass(frozen=True)
class Call(Generic[T]):
    """One request; ``T`` is the JSON body's type (None for 204)."""

    method: str
    path: str
    json: Any = None
    params: Params = field(default_factory=dict)


def _user(user_id: str) -> str:
    return f"/v1/users/{quote(user_id, safe='')}"


def _memories(user_id: str) -> str:
    return f"{_user(user_id)}/memories"


def _given(**options: Any) -> dict[str, Any]:
    """The options a caller gave (None means left out)."""
    return {k: v for k, v in options.items() if v is not None}


def _listing(
    order: Order | None,
    limit: int | None,
    cursor: str | None,
    types: list[MemoryType] | None,
    level: Level | None,
    include_superseded: bool | None,
) -> Params:
    params: Params = _given(
        order=order, limit=limit, cursor=cursor, level=level, include_superseded=include_superseded
    )
    if types:
        params["type"] = list(types)
    return params


# /v1: a user's memories


def remember(user_id: str, content: str, options: RememberOptions) -> Call[Memory]:
    return Call("POST", _memories(user_id), {"content": content, **options})


def remember_many(user_id: str, items: list[NewMemory]) -> Call[BatchResult]:
    return Call("POST", f"{_memories(user_id)}/batch", {"items": items})


def list_memories(
    user_id: str,
    order: Order | None,
    limit: int | None,
    cursor: str | None,
    types: list[MemoryType] | None,
    level: Level | None,
    include_superseded: bool | None,
) -> Call[MemoryPage]:
    params = _listing(order, limit, cursor, types, level, include_superseded)
    return Call("GET", _memories(user_id), params=params)


def get_memory(user_id: str, memory_id: int) -> Call[Memory]:
    return Call("GET", f"{_memories(user_id)}/{memory_id}")


def update_memory(user_id: str, memory_id: int, changes: MemoryChanges) -> Call[Memory]:
    return Call("PATCH", f"{_memories(user_id)}/{memory_id}", dict(changes))


def forget(user_id: str, memory_id: int) -> Call[None]:
    return Call("DELETE", f"{_memories(user_id)}/{memory_id}")


def link(user_id: str, memory_id: int, target_id: int, weight: float | None) -> Call[Link]:
    body = _given(target_id=target_id, weight=weight)
    return Call("POST", f"{_memories(user_id)}/{memory_id}/links", body)


def links(user_id: str, memory_id: int) -> Call[list[Link]]:
    return Call("GET", f"{_memories(user_id)}/{memory_id}/links")


def supersede(user_id: str, memory_id: int, by: int) -> Call[Memory]:
    return Call("POST", f"{_memories(user_id)}/{memory_id}/supersede", {"by": by})


def restore(user_id: str, memory_id: int) -> Call[Memory]:
    return Call("POST", f"{_memories(user_id)}/{memory_id}/restore")


# /v1: recall, escalations, context, messages


def recall(user_id: str, query: str, options: RecallOptions) -> Call[RecallResult]:
    return Call("POST", f"{_user(user_id)}/recall", {"query": query, **options})


def used(user_id: str, ids: list[int]) -> Call[UsedResult]:
    return Call("POST", f"{_user(user_id)}/memories/used", {"ids": ids})


def escalations(
    user_id: str, include_acknowledged: bool | None, include_superseded: bool | None
) -> Call[list[Memory]]:
    params: Params = _given(
        include_acknowledged=include_acknowledged, include_superseded=include_superseded
    )
    return Call("GET", f"{_user(user_id)}/escalations", params=params)


def acknowledge(user_id: str, memory_id: int) -> Call[Memory]:
    return Call("POST", f"{_user(user_id)}/escalations/{memory_id}/ack")


def context(
    user_id: str, messages: list[ChatMessage], budget_tokens: int, options: Json
) -> Call[Json]:
    body = {"messages": messages, "budget_tokens": budget_tokens, **options}
    return Call("POST", f"{_user(user_id)}/context", body)


def score_messages(user_id: str, messages: list[ChatMessage], options: Json) -> Call[Json]:
    return Call("POST", f"{_user(user_id)}/messages/score", {"messages": messages, **options})


def compress_messages(user_id: str, messages: list[ChatMessage], options: Json) -> Call[Json]:
    return Call("POST", f"{_user(user_id)}/messages/compress", {"messages": messages, **options})


# /admin


def admin_users(limit: int | None, cursor: str | None) -> Call[AdminUsers]:
    return Call("GET", "/admin/users", params=_given(limit=limit, cursor=cursor))


def admin_user_memories(
    user_id: str,
    order: Order | None,
    limit: int | None,
    cursor: str | None,
    types: list[MemoryType] | None,
    level: Level | None,
) -> Call[MemoryPage]:
    params = _listing(order, limit, cursor, types, level, None)
    return Call("GET", f"/admin/users/{quote(user_id, safe='')}/memories", params=params)


def admin_memory(memory_id: int) -> Call[AdminMemory]:
    return Call("GET", f"/admin/memories/{memory_id}")


def admin_jobs(limit: int | None) -> Call[list[JobRun]]:
    return Call("GET", "/admin/jobs", params=_given(limit=limit))


def admin_rescore(user_id: str | None) -> Call[JobRun]:
    return Call("POST", "/admin/jobs/rescore", _given(user_id=user_id))


def admin_stats() -> Call[Json]:
    return Call("GET", "/admin/stats")


def _admin_conversation(user_id: str, conversation_id: str) -> str:
    return f"/admin/users/{quote(user_id, safe='')}/conversations/{quote(conversation_id, safe='')}"


def admin_message_scores(
    user_id: str, conversation_id: str, limit: int | None, after: int | None
) -> Call[Json]:
    path = f"{_admin_conversation(user_id, conversation_id)}/message-scores"
    return Call("GET", path, params=_given(limit=limit, after=after))


def admin_compressions(user_id: str, conversation_id: str, limit: int | None) -> Call[list[Json]]:
    path = f"{_admin_conversation(user_id, conversation_id)}/compressions"
    return Call("GET", path, params=_given(limit=limit))


# health


def healthz() -> Call[Json]:
    return Call("GET", "/healthz")


def readyz() -> Call[Json]:
    return Call("GET", "/readyz")
