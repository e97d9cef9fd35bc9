"""The frontend's chat-completions messages in and out of context assembly.

Context assembly works on text (:class:`ChatMessage`); a frontend's messages may hold
images, tool calls and fields no one here knows. So the proxy never forwards what the
assembler returns for the frontend's own messages: it forwards the frontend's message
itself (every field untouched), at the place the assembler kept it, and only the
messages the assembler wrote (the memory block, a rolling summary, the key user
information) are new. Each message goes in tagged with its index (``ChatMessage.id``),
which the assembler carries through to a shortened copy.

A message the assembler shortened is forwarded shortened when it is plain text; a
message with structure (parts, tool calls) is forwarded whole, since its structure
cannot be cut. A message the assembler dropped is left out, and so is the rest of its
tool exchange (an assistant message's ``tool_calls`` and the ``tool`` answers to them):
upstreams refuse a tool answer without its call and a call without its answers.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from services.context.assembly.assembler import AssembledContext
from services.context.shared.messages import ROLES, ChatMessage

RawMessage = Mapping[str, Any]

_TAG: Final = "proxy:"
# Roles outside context assembly's, as it should weigh them: OpenAI's legacy "function"
# answer is a tool answer.
_ROLE_FOR: Final = {"function": "tool"}


def message_text(message: RawMessage) -> str:
    """The text of a message: its string content, or its text parts joined; images and
    other parts have none."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            part["text"]
            for part in content
            if isinstance(part, Mapping) and isinstance(part.get("text"), str)
        ]
        return "\n".join(parts)
    return ""


def _is_structured(message: RawMessage) -> bool:
    return not isinstance(message.get("content"), str) or any(
        key in message for key in ("tool_calls", "function_call")
    )


def to_chat_messages(raw: Sequence[RawMessage]) -> list[ChatMessage]:
    """What context assembly reads of each message: its role and text (tool calls count
    as their JSON, so the budget sees their tokens), tagged with its index."""
    messages = []
    for index, message in enumerate(raw):
        role = str(message.get("role", ""))
        # A role no one here knows is weighed as the person's words.
        role = _ROLE_FOR.get(role, role) if role in ROLES or role in _ROLE_FOR else "user"
        text = message_text(message)
        calls = message.get("tool_calls") or message.get("function_call")
        if calls:
            text = f"{text}\n{json.dumps(calls, ensure_ascii=False)}".strip()
        name = message.get("name")
        messages.append(
            ChatMessage(
                role, text, name=name if isinstance(name, str) else None, id=f"{_TAG}{index}"
            )
        )
    return messages


def _index(message: ChatMessage) -> int | None:
    if message.id is None or not message.id.startswith(_TAG):
        return None
    return int(message.id[len(_TAG) :])


def _tool_exchanges(raw: Sequence[RawMessage]) -> list[set[int]]:
    """Each assistant message with tool calls and the tool answers that follow it."""
    exchanges: list[set[int]] = []
    current: set[int] | None = None
    for index, message in enumerate(raw):
        role = message.get("role")
        if role == "assistant" and (message.get("tool_calls") or message.get("function_call")):
            current = {index}
            exchanges.append(current)
        elif role in ("tool", "function") and current is not None:
            current.add(index)
        else:
            current = None
    return exchanges


def forwarded_messages(
    raw: Sequence[RawMessage], assembled: AssembledContext
) -> list[dict[str, Any]]:
    """The messages to send upstream: the frontend's own in the assembler's order (see
    the module docstring), and the assembler's new ones as it wrote them."""
    placed: list[tuple[int | None, dict[str, Any]]] = []
    for message in assembled.messages:
        index = _index(message)
        if index is None:
            written: dict[str, Any] = {"role": message.role, "content": message.content}
            if message.name is not None:
                written["name"] = message.name
            placed.append((None, written))
            continue
        original = dict(raw[index])
        if message.content != message_text(original) and not _is_structured(original):
            original["content"] = message.content
        placed.append((index, original))
    kept = {index for index, _ in placed if index is not None}
    broken: set[int] = set()
    for exchange in _tool_exchanges(raw):
        if exchange & kept and not exchange <= kept:
            broken |= exchange
    return [message for index, message in placed if index is None or index not in broken]


def last_user_turn(raw: Sequence[RawMessage]) -> str | None:
    """The person's new turn: the text of the last message when the person wrote it.
    None when the last message is a tool answer or the assistant's (the turn that led
    to it was remembered with the request that carried it), or holds no text."""
    if not raw or raw[-1].get("role") != "user":
        return None
    text = message_text(raw[-1]).strip()
    return text or None
