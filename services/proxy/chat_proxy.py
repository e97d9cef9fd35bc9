"""The memory proxy's part between the frontend and the model (``POST /v1/chat/completions``).

Before the model: the person's memories are assembled into the conversation by the same
context assembly as ``POST /v1/users/{id}/context`` (recall, sufficiency, the budget, the
compression of long histories), within the model's context window less the room its
answer may take (``max_completion_tokens`` or ``max_tokens``). The frontend's own
messages pass through untouched (services/proxy/messages.py).

After a whole answer: the person's new turn (the last message, when the person wrote it)
is remembered with role ``user`` under the conversation. The model's answer is not
remembered: memory keeps what the person said (the model's words are derived from it and
would be recalled as if they were the person's knowledge), and a streamed answer would
have to be rebuilt from its chunks.

Each step is a unit of work of its own: no transaction is open while the model answers,
which may take minutes (SQLite's write lock, PostgreSQL's connections). Memory stands in
the answer's way as little as it can: a conversation context assembly refuses (a
message over its size limits, a window too small for the last message) goes to the
model as it came, and a turn that cannot be stored after a whole answer is logged, never
answered as an error. Only a database that fails before the model is asked fails the
request (503 ``database_busy``, which clients retry).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from services.context.assembly.service import ContextRequest, ContextService
from services.core.db import Database
from services.core.errors import InvalidInput
from services.core.settings import Settings
from services.proxy.messages import forwarded_messages, last_user_turn, to_chat_messages
from services.proxy.upstream import Upstream
from services.remembering.memory_service import MemoryService, NewMemory

log = logging.getLogger(__name__)

# The ``source`` of the turns the proxy remembers.
PROXY_SOURCE = "chat_proxy"


def encode(body: Mapping[str, Any]) -> bytes:
    """A request body as JSON for the upstream."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


class ChatProxy:
    """Memory around one chat-completions request (the route relays the answer)."""

    def __init__(
        self,
        db: Database,
        settings: Settings,
        upstream: Upstream,
        context: Callable[[AsyncSession], ContextService],
        memories: Callable[[AsyncSession], MemoryService],
    ) -> None:
        self.db = db
        self.settings = settings
        self.upstream = upstream
        self._context = context
        self._memories = memories

    def passthrough(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """``body`` with the model named as the upstream knows it (PROXY_MODEL_MAP)."""
        out = dict(body)
        model = body.get("model")
        if isinstance(model, str) and model in self.settings.proxy_model_map:
            out["model"] = self.settings.proxy_model_map[model]
        return out

    def budget(self, body: Mapping[str, Any]) -> int:
        """Tokens the conversation may take: the model's window less its answer's room."""
        s = self.settings
        model = body.get("model")
        window = s.proxy_context_tokens
        if isinstance(model, str):
            window = s.proxy_model_context_tokens.get(model, window)
        answer = body.get("max_completion_tokens", body.get("max_tokens"))
        if isinstance(answer, int) and not isinstance(answer, bool) and 0 < answer < window:
            return window - answer
        return window

    async def with_memories(
        self, person: str, conversation: str, body: Mapping[str, Any]
    ) -> dict[str, Any]:
        """``body`` to forward, its messages with the person's memories assembled in."""
        out = self.passthrough(body)
        raw = body["messages"]
        request = ContextRequest(
            messages=to_chat_messages(raw),
            budget_tokens=self.budget(body),
            conversation_id=conversation,
        )
        try:
            async with self.db.unit_of_work() as session:
                assembled = await self._context(session).assemble(person, request)
        except InvalidInput as exc:
            log.warning("chat proxy: forwarded without memories: %s", exc.message)
            return out
        out["messages"] = forwarded_messages(raw, assembled)
        return out

    async def remember_turn(
        self, person: str, conversation: str, messages: Sequence[Mapping[str, Any]]
    ) -> None:
        """Remember the person's new turn under ``conversation`` (nothing when the last
        message is not the person's)."""
        turn = last_user_turn(messages)
        if turn is None:
            return
        item = NewMemory(turn, source=PROXY_SOURCE, conversation_id=conversation, role="user")
        try:
            async with self.db.unit_of_work() as session:
                await self._memories(session).add(person, item)
        except InvalidInput as exc:
            log.warning("chat proxy: the turn was not remembered: %s", exc.message)
        except Exception:
            # The answer is whole and the client has it or is about to: a busy or failing
            # database must not turn it into an error the client would retry.
            log.exception("chat proxy: the turn was not remembered")
