"""The chat message the context services work on (OpenAI chat-completions shape)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from services.core.errors import InvalidInput
from services.core.validation import check_text

# Roles a chat-completions request may carry. "developer" is the newer name some
# providers use for "system"; both are kept verbatim by compression.
ROLES: Final = ("system", "developer", "user", "assistant", "tool")
SYSTEM_ROLES: Final = frozenset({"system", "developer"})
MAX_MESSAGES: Final = 5000
MAX_MESSAGE_CHARS: Final = 200_000  # tool output (a whole file) can be long
# A conversation's text in all: scoring reads every character (jieba, 5-30 µs each), so
# 5,000 messages of 200,000 characters would be hours of one core.
MAX_CONVERSATION_CHARS: Final = 1_000_000


@dataclass(frozen=True)
class ChatMessage:
    """One message of a conversation, as the frontend sends it."""

    role: str
    content: str
    name: str | None = None
    id: str | None = None
    timestamp: float | None = None
    # The frontend marks the first message of a new topic (seed 001 §4.1).
    topic_change: bool = False
    # The phase of work the message belongs to (seed 000 "Phase切换").
    phase: str | None = None

    @property
    def is_system(self) -> bool:
        """System instructions are never dropped by compression (seed 000 smart_compress)."""
        return self.role in SYSTEM_ROLES


def validate_messages(messages: Sequence[ChatMessage]) -> None:
    """At least one message, known roles, text without NUL, within the size limits."""
    if not messages:
        raise InvalidInput("messages must not be empty")
    if len(messages) > MAX_MESSAGES:
        raise InvalidInput(f"at most {MAX_MESSAGES} messages")
    for index, message in enumerate(messages):
        if message.role not in ROLES:
            raise InvalidInput(
                f"messages[{index}].role {message.role!r} is not one of {', '.join(ROLES)}"
            )
        if len(message.content) > MAX_MESSAGE_CHARS:
            raise InvalidInput(f"messages[{index}].content is over {MAX_MESSAGE_CHARS} characters")
        check_text(message.content, f"messages[{index}].content")
    if sum(len(m.content) for m in messages) > MAX_CONVERSATION_CHARS:
        raise InvalidInput(f"messages hold at most {MAX_CONVERSATION_CHARS} characters in all")
