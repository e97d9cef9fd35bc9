"""Key user information for a reconstructed context (seed 001 §4.2 ``extractKeyUserInfo``).

When the history is rebuilt around a summary, the person's profile facts go with it: the
current (not superseded) memories that state a fact slot (residence, name, job, employer,
partner, a favourite, …; services/remembering/facts), most important first. They become
one assistant message named ``user_profile``, titled ``## Key User Information``, right
after the summary, and share the summary's budget (seed 001: 0.3 of the history budget).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Final

from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import TokenEstimator

PROFILE_NAME: Final = "user_profile"
PROFILE_TITLE: Final = "## Key User Information"
MAX_PROFILE_FACTS: Final = 20


@dataclass(frozen=True)
class ProfileFact:
    """A current memory that states one of the person's facts."""

    memory_id: int
    slot: str
    content: str


ProfileLoader = Callable[[], Awaitable[Sequence[ProfileFact]]]


def is_profile_message(message: ChatMessage) -> bool:
    """An earlier key-user-information block (replaced, never stacked)."""
    return message.name == PROFILE_NAME or message.content.lstrip().startswith(PROFILE_TITLE)


def profile_block(
    facts: Sequence[ProfileFact], budget: int, estimator: TokenEstimator
) -> tuple[ChatMessage, list[int]] | None:
    """The block of as many facts (in the order given) as fit ``budget`` tokens, and their
    memory ids; None when not one fits."""
    lines: list[str] = []
    ids: list[int] = []
    for fact in facts:
        line = f"- {fact.slot.split('@')[0]}: {fact.content}"
        if estimator.message(_block([*lines, line])) <= budget:
            lines.append(line)
            ids.append(fact.memory_id)
    return (_block(lines), ids) if lines else None


def _block(lines: Sequence[str]) -> ChatMessage:
    return ChatMessage("assistant", "\n".join([PROFILE_TITLE, *lines]), name=PROFILE_NAME)
