"""A LangChain chat-message history whose turns are the person's memories.

Each human turn is remembered with ``role`` ``user`` and each AI turn with ``role``
``assistant``, under the history's ``conversation_id``, so recall and ``/context`` find
them (and lend a hit's relevance to the turns around it in the conversation). Choices:

- Only human and AI turns are memories (the roles the service has); adding any other
  message (system, tool) raises ``ValueError`` rather than dropping it unseen. A turn with
  no text (an AI message that only calls tools) has nothing to remember and is skipped.
- The service merges a turn that repeats an earlier memory of the same role (it counts
  the mention instead of storing it twice): such a turn is read back once, where it was
  first said, and in the conversation where it was first said.
- ``messages`` walks the person's listing (newest first, a page at a time) and keeps the
  conversation's turns: the API lists memories by person, not by conversation, so it
  costs a request per hundred of the person's memories.
- ``clear`` forgets every memory of the conversation, one ``DELETE`` each (the API has
  no bulk delete short of erasing the person); the person's other memories stay.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from jarvis_memory_client.async_client import AsyncJarvisMemory
from jarvis_memory_client.client import JarvisMemory
from jarvis_memory_client.errors import NotFoundError
from jarvis_memory_client.types import Memory, NewMemory, Role

PAGE = 100  # the listing's largest page
SOURCE = "langchain"


def _item(message: BaseMessage, conversation_id: str) -> NewMemory | None:
    """The memory a message becomes (None: nothing to remember)."""
    if isinstance(message, HumanMessage):
        role: Role = "user"
    elif isinstance(message, AIMessage):
        role = "assistant"
    else:
        raise ValueError(
            f"only human and AI messages are remembered, not {message.type!r} messages"
        )
    text = message.text  # the text blocks of a message with images or tool calls
    if not text.strip():
        return None
    return NewMemory(content=text, source=SOURCE, conversation_id=conversation_id, role=role)


def _items(messages: Sequence[BaseMessage], conversation_id: str) -> list[NewMemory]:
    made = [_item(message, conversation_id) for message in messages]
    return [item for item in made if item is not None]


def _turns(memories: Iterable[Memory], conversation_id: str) -> list[Memory]:
    """The conversation's memories, oldest first."""
    mine = [m for m in memories if m.get("conversation_id") == conversation_id]
    return sorted(mine, key=lambda m: (m["created_at"], m["id"]))


def _message(memory: Memory) -> BaseMessage:
    kind = HumanMessage if memory["role"] == "user" else AIMessage
    return kind(content=memory["content"], id=str(memory["id"]))


class JarvisChatMessageHistory(BaseChatMessageHistory):
    """One conversation of one person, kept as memories.

    ``client`` serves the sync methods; ``async_client``, if given, the async ones
    (``aget_messages``, ``aadd_messages``, ``aclear``), which otherwise run the sync
    ones in an executor.
    """

    def __init__(
        self,
        user_id: str,
        conversation_id: str,
        *,
        client: JarvisMemory | None = None,
        async_client: AsyncJarvisMemory | None = None,
    ) -> None:
        if client is None and async_client is None:
            raise ValueError("give client (JarvisMemory), async_client, or both")
        self.user_id = user_id
        self.conversation_id = conversation_id
        self.client = client
        self.async_client = async_client

    def _sync(self) -> JarvisMemory:
        if self.client is None:
            raise ValueError("this history has only an async_client: use the async methods")
        return self.client

    def _memories(self) -> list[Memory]:
        listing = self._sync().iter_memories(
            self.user_id, order="recent", page_size=PAGE, include_superseded=True
        )
        return _turns(listing, self.conversation_id)

    async def _amemories(self, client: AsyncJarvisMemory) -> list[Memory]:
        listing = client.iter_memories(
            self.user_id, order="recent", page_size=PAGE, include_superseded=True
        )
        return _turns([m async for m in listing], self.conversation_id)

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        """The conversation's turns, oldest first (``id``: the memory id)."""
        return [_message(m) for m in self._memories()]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Remember the turns in order, all or nothing (one batch)."""
        items = _items(messages, self.conversation_id)
        if items:
            self._sync().remember_many(self.user_id, items)

    def clear(self) -> None:
        """Forget every memory of the conversation."""
        client = self._sync()
        for memory in self._memories():
            with contextlib.suppress(NotFoundError):  # forgotten meanwhile
                client.forget(self.user_id, memory["id"])

    async def aget_messages(self) -> list[BaseMessage]:
        if self.async_client is None:
            return await super().aget_messages()
        return [_message(m) for m in await self._amemories(self.async_client)]

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        if self.async_client is None:
            await super().aadd_messages(messages)
            return
        items = _items(messages, self.conversation_id)
        if items:
            await self.async_client.remember_many(self.user_id, items)

    async def aclear(self) -> None:
        if self.async_client is None:
            await super().aclear()
            return
        for memory in await self._amemories(self.async_client):
            with contextlib.suppress(NotFoundError):
                await self.async_client.forget(self.user_id, memory["id"])
