"""Which person a proxied chat request is for, and which conversation its turn joins."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from services.core.errors import InvalidInput
from services.core.validation import check_user_id
from services.proxy.messages import RawMessage

# Where frontends put their own conversation id in the body, first found wins: OpenAI's
# ``metadata`` object, then top-level fields some frontends add.
_BODY_PATHS: Final = (
    ("metadata", "conversation_id"),
    ("metadata", "chat_id"),
    ("conversation_id",),
    ("chat_id",),
)
DERIVED_PREFIX: Final = "chat-"


class UserRequired(InvalidInput):
    """A chat request with memory on that names no person."""

    code = "user_required"


def person_of(named: Sequence[tuple[str, object]]) -> str | None:
    """The person: the first of ``named`` (where, value) that is given, in the order the
    edge lists them (``X-Jarvis-User``, a frontend's own user header, the body's
    ``user``). The operator's header wins: ``user`` is whatever id the frontend sends
    its model. A value that is not a valid user id is refused, naming where it was."""
    for where, value in named:
        if value is None:
            continue
        if not isinstance(value, str):
            raise InvalidInput(f"{where} must be a string")
        return _valid_id(value, where)
    return None


def _valid_id(value: str, where: str) -> str:
    try:
        return check_user_id(value)
    except InvalidInput as exc:
        raise InvalidInput(f"{where} must be 1-128 characters of [A-Za-z0-9_.:@-]") from exc


def _digest(value: str) -> str:
    return DERIVED_PREFIX + hashlib.sha256(value.encode()).hexdigest()[:32]


def conversation_of(
    header: str | None,
    frontend_header: str | None,
    body: Mapping[str, Any],
    messages: Sequence[RawMessage],
) -> str:
    """The conversation the turn is remembered under.

    The ``X-Jarvis-Conversation`` header (refused when it is not a valid id), else the
    frontend's own id: a header of its own (``frontend_header``), else one from the body
    (an id that is not a valid one is hashed into one), else an id derived from the
    conversation's first user message (its first message when it has none): every
    request of a conversation repeats that message, and a system prompt would be the
    same for every conversation of a frontend.
    """
    if header is not None:
        return _valid_id(header, "X-Jarvis-Conversation")
    candidates: list[object] = [frontend_header]
    for path in _BODY_PATHS:
        found: Any = body
        for key in path:
            found = found.get(key) if isinstance(found, Mapping) else None
        candidates.append(found)
    for found in candidates:
        if isinstance(found, str | int) and not isinstance(found, bool) and str(found):
            value = str(found)
            try:
                return check_user_id(value)
            except InvalidInput:
                return _digest(value)
    first = next((m for m in messages if m.get("role") == "user"), messages[0])
    return _digest(json.dumps(first.get("content"), sort_keys=True, ensure_ascii=False))
