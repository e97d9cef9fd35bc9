"""The chat message the context services work on (OpenAI chat-completions shape)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# Roles a chat-completions request may carry. "developer" is the newer name some
# providers use for "system"; both are kept verbatim by compression.
ROLES: Final = ("system", "developer", "user", "assistant", "tool")
SYSTEM_ROLES: Final = frozenset({"system", "developer"})


@dataclass(frozen=True)
class ChatMessage:
    """One message of a conversation, as the frontend sends it."""

    role: str
    content: str
    name: str | None = None
    id: str | None = None
    timestamp: float | None = None

    @property
    def is_system(self) -> bool:
        """System instructions are never dropped by compression (seed 000 smart_compress)."""
        return self.role in SYSTEM_ROLES
