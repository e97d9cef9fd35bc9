"""The memory tools: each call is one unit of work, committed before the tool answers.

They call the same services as the REST routes (api/routes/), with the same unit-of-work
shape: a write opens ``Database.unit_of_work`` and builds its answer only after the block
has exited, so a COMMIT that fails is the tool's error and nothing was reported stored
that another connection cannot read (docs/architecture.md, "commit, then answer").
Recall ranks in a reader and counts its hits in a short unit of work of its own, as
``POST /recall`` does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from contextvars import ContextVar
from functools import partial
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field
from sqlalchemy.exc import DBAPIError

from api.auth import authorize
from api.deps import (
    ensure_schema_ready,
    get_context_service,
    get_memory_service,
    get_recall_service,
)
from api.mcp.schemas import (
    Assembled,
    ContextMessage,
    Corrected,
    Forgotten,
    InjectedMemory,
    MemoryList,
    MemoryView,
    Recalled,
    RecallHitView,
    Remembered,
    UserIdArg,
    Why,
)
from api.schemas.common import Content, Level, MemoryType, NoNul, Role, Tags
from api.schemas.messages import ChatMessageIn
from services.access.keys import KeyScope
from services.composition import Services
from services.context.assembly.service import ContextRequest
from services.core.db import is_contention
from services.core.errors import DomainError
from services.core.validation import MAX_CONTENT_CHARS, MAX_ID, MAX_TOP_K
from services.recall.sufficiency import sufficiency
from services.recall.tracked import recall_and_track
from services.remembering.memory_service import MemoryService, NewMemory

T = TypeVar("T")

# The scope of the key that made the current ``/mcp`` request (api/mcp/http.py sets it).
CALLER: ContextVar[KeyScope | None] = ContextVar("jarvis_mcp_caller", default=None)

# How many memories the "most important" resource lists.
IMPORTANT_LIMIT = 20

# The REST bodies' own field types: a tool refuses what the route refuses.
Statement = Annotated[Content, Field(description="the statement, in the user's words")]
MemoryIdArg = Annotated[int, Field(ge=1, le=MAX_ID, description="a memory id")]
TopK = Annotated[int, Field(ge=1, le=MAX_TOP_K, description="how many memories, best first")]
EmotionTags = Annotated[
    Tags, Field(description="emotion tags, e.g. worried, happy (they weigh into importance)")
]


class ToolFailure(ToolError):
    """A refusal the model should read: ``<code>: <message>``, as the REST error body."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


@asynccontextmanager
async def _as_tool_errors() -> AsyncIterator[None]:
    """The service's refusals and database contention, in the REST API's codes."""
    try:
        yield
    except DomainError as exc:
        raise ToolFailure(exc.code, exc.message) from exc
    except DBAPIError as exc:
        if not is_contention(exc):
            raise
        raise ToolFailure(
            "database_busy",
            "the database was busy with other writes to this data; nothing was written, retry",
        ) from exc


def _why(explanation: dict[str, Any] | None) -> Why | None:
    """The explanation's gist: ``recall --explain`` prints hundreds of lines per hit."""
    if explanation is None:
        return None
    signals = {
        name: round(part["contribution"], 4)
        for name, part in explanation["signals"].items()
        if part["contribution"]
    }
    terms = explanation["relevance"].get("matched_terms") or []
    return Why(
        query_type=explanation["query_type"],
        signals=signals,
        matched_terms=[t["term"] if isinstance(t, dict) else str(t) for t in terms],
    )


class MemoryTools:
    """The tools, over the application state the server shares with the REST routes.

    ``scoped`` (over HTTP): every call's ``user_id`` must be reached by the caller's key
    (:data:`CALLER`); a call without a key's scope is refused, never let through. Over
    stdio the server belongs to one user fixed at start (api/mcp/server.py).
    """

    def __init__(self, state_of: Callable[[], Services], *, scoped: bool = True) -> None:
        self._state_of = state_of
        self._scoped = scoped

    def _reach(self, user_id: str) -> None:
        """Refuse a user the caller's key does not reach (api/auth.py's rule)."""
        if not self._scoped:
            return
        caller = CALLER.get()
        if caller is None:
            raise ToolFailure("unauthorized", "no key was checked for this call")
        try:
            authorize(caller, user_id, admin=False)
        except DomainError as exc:
            raise ToolFailure(exc.code, exc.message) from exc

    async def _write(self, work: Callable[[MemoryService], Awaitable[T]]) -> T:
        """Run ``work`` in a unit of work; return only after it committed."""
        state = self._state_of()
        async with _as_tool_errors():
            await ensure_schema_ready(state)
            async with state.db.unit_of_work() as session:
                result = await work(await get_memory_service(state, session))
        return result

    async def _read(self, work: Callable[[MemoryService], Awaitable[T]]) -> T:
        state = self._state_of()
        async with _as_tool_errors():
            await ensure_schema_ready(state)
            async with state.db.reader() as session:
                return await work(await get_memory_service(state, session))

    async def remember(
        self,
        user_id: UserIdArg,
        content: Statement,
        memory_type: MemoryType = "other",
        tags: EmotionTags | None = None,
        role: Annotated[
            Role,
            Field(
                description='whose words: "user" (the person\'s, the default) or "assistant" '
                "(your own reply, kept as context; it never counts as the user's fact)"
            ),
        ] = "user",
    ) -> Remembered:
        """Remember a statement about the user (a fact, preference, goal, decision, todo,
        event...). Saying the same thing again merges into the stored memory and counts
        as another mention, which raises its importance."""
        self._reach(user_id)
        item = NewMemory(
            content=content, memory_type=memory_type, emotion_tags=tags or [], role=role
        )

        async def add(service: MemoryService) -> Remembered:
            stored = await service.add(user_id, item)
            return Remembered(memory=MemoryView.of(stored.memory), merged=stored.merged)

        return await self._write(add)

    async def recall(
        self,
        user_id: UserIdArg,
        query: Annotated[
            str,
            NoNul,
            Field(
                max_length=MAX_CONTENT_CHARS,
                description='what the answer is about; "" for what matters most',
            ),
        ] = "",
        top_k: TopK = 5,
        memory_types: Annotated[
            list[MemoryType] | None, Field(description="only these types")
        ] = None,
    ) -> Recalled:
        """The user's memories that matter most for a query, best first, each with its
        score, its confidence and why it came back (the signals' shares of the score).
        Only memories with evidence for the query come back (possibly fewer than top_k);
        ``sufficient`` says whether they are enough to answer."""
        self._reach(user_id)
        state = self._state_of()
        async with _as_tool_errors():
            await ensure_schema_ready(state)
            hits = await recall_and_track(
                state.db,
                partial(get_recall_service, state),
                user_id,
                query,
                top_k,
                explain=True,
                types=memory_types or [],
            )
        verdict = sufficiency(
            [h.evidence for h in hits],
            [h.confidence for h in hits],
            state.settings,
            asked=bool(query.strip()),
        )
        return Recalled(
            results=[
                RecallHitView(
                    memory=MemoryView.of(h.memory),
                    score=round(h.score, 4),
                    relevance=round(h.relevance, 4),
                    importance=round(h.importance, 4),
                    confidence=None if h.confidence is None else round(h.confidence, 4),
                    context_of=h.evidence.context_of if h.evidence else None,
                    why=_why(h.explanation),
                )
                for h in hits
            ],
            sufficient=verdict.sufficient,
            coverage=round(verdict.coverage, 4),
        )

    async def forget(self, user_id: UserIdArg, memory_id: MemoryIdArg) -> Forgotten:
        """Forget one memory (and its links). Forgetting a correction brings back the
        memory it had replaced."""
        self._reach(user_id)

        async def delete(service: MemoryService) -> Forgotten:
            await service.delete(user_id, memory_id)
            return Forgotten(forgotten=memory_id)

        return await self._write(delete)

    async def list_memories(
        self,
        user_id: UserIdArg,
        order: Literal["importance", "recent"] = "importance",
        limit: Annotated[int, Field(ge=1, le=100)] = 20,
        cursor: Annotated[
            str | None,
            Field(pattern=r"^[A-Za-z0-9_-]{1,512}$", description="next_cursor of the last page"),
        ] = None,
        level: Level | None = None,
        memory_types: Annotated[
            list[MemoryType] | None, Field(description="only these types")
        ] = None,
    ) -> MemoryList:
        """A page of the user's current memories, most important (or newest) first."""
        self._reach(user_id)

        async def page(service: MemoryService) -> MemoryList:
            found = await service.list_page(
                user_id,
                order=order,
                limit=limit,
                cursor=cursor,
                types=memory_types or [],
                level=level,
            )
            return MemoryList(
                items=[MemoryView.of(m) for m in found.items], next_cursor=found.next_cursor
            )

        return await self._read(page)

    async def correct_fact(
        self, user_id: UserIdArg, memory_id: MemoryIdArg, correction: Statement
    ) -> Corrected:
        """Correct a stored memory that is no longer true: the correction is remembered
        and supersedes the old memory, which leaves recall but stays in the history."""
        self._reach(user_id)

        async def correct(service: MemoryService) -> Corrected:
            old = await service.get(user_id, memory_id)  # 404 before anything is written
            item = NewMemory(content=correction, memory_type=old.memory_type)
            stored = await service.add(user_id, item)
            superseded = await service.supersede(user_id, memory_id, stored.memory.id)
            return Corrected(old=MemoryView.of(superseded), new=MemoryView.of(stored.memory))

        return await self._write(correct)

    async def context(
        self,
        user_id: UserIdArg,
        messages: Annotated[
            list[ChatMessageIn],
            Field(min_length=1, max_length=1000, description="the conversation so far"),
        ],
        budget_tokens: Annotated[int, Field(ge=1, le=10_000_000)],
        query: Annotated[
            str | None,
            NoNul,
            Field(max_length=8000, description="what to recall for; default the last user message"),
        ] = None,
        memory_top_k: Annotated[int | None, Field(ge=1, le=MAX_TOP_K)] = None,
    ) -> Assembled:
        """Assemble the messages to send to the model within ``budget_tokens``: system
        messages, a summary of what had to be left out, the recent history, and a block of
        the user's relevant memories before the last user message."""
        self._reach(user_id)
        state = self._state_of()
        request = ContextRequest(
            messages=[m.to_chat() for m in messages],
            budget_tokens=budget_tokens,
            query=query,
            memory_top_k=memory_top_k,
        )
        async with _as_tool_errors():
            await ensure_schema_ready(state)
            async with state.db.unit_of_work() as session:
                service = await get_context_service(state, session)
                result = await service.assemble(user_id, request)
        return Assembled(
            messages=[ContextMessage(role=m.role, content=m.content) for m in result.messages],
            memories=[
                InjectedMemory(id=m.id, text=m.text, score=round(m.score, 4))
                for m in result.memories
            ],
            total_tokens=result.total_tokens,
            budget_tokens=result.budget_tokens,
        )

    async def most_important(self, user_id: str) -> MemoryList:
        """The user's most important current memories (the resource's content)."""
        return await self.list_memories(user_id, limit=IMPORTANT_LIMIT)
