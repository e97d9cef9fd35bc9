"""The LLM answers already paid for, keyed by what the prompt shows of a message (role,
name, content hash) and the task, never by the caller's message id (seed 000 "缓存优化")."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from services.context.shared.messages import ChatMessage
from services.core.secret import keyed_hash


@dataclass(frozen=True)
class LlmAnswer:
    """The LLM's score (0-10, the seed's rubric) for one message, and why."""

    score: float
    reason: str | None = None


def task_key(
    task_context: str, task_type: str, phase: str | None = None, secret: bytes = b""
) -> str:
    """A short stable hash of the task: the same message matters differently per task
    (and per phase, which the prompt names too). Keyed with the deployment's secret
    (services/core/secret.py): the task is the person's words and is stored with scores."""
    text = f"{task_type}\x1f{task_context.strip()}"
    if phase:
        text += f"\x1f{phase.strip()}"
    return keyed_hash(secret, text)[:32]


def message_key(message: ChatMessage, hashed: str) -> str:
    """What the LLM's answer depends on: the message's role, name and content, all the
    prompt shows of it (services/context/importance/llm_scorer.py).

    Not its id. Ids are the caller's ("m1" in every conversation) and this cache is the
    process's: keyed by id, one conversation's "m1" was answered with another's answer,
    reason included (the reason speaks of that other message's content), and an edited
    message kept the answer for its old text. ``hashed`` is the content's keyed hash
    (MessageImportanceScorer.content_hash).
    """
    return f"{message.role}:{message.name or ''}:{hashed}"


class ScoreCache:
    """A bounded least-recently-used map of (message key, task key) → LLM answer."""

    def __init__(self, max_entries: int = 10_000) -> None:
        self._max = max_entries
        self._entries: OrderedDict[tuple[str, str], LlmAnswer] = OrderedDict()

    def get(self, message: str, task: str) -> LlmAnswer | None:
        """The cached answer, refreshed as most recently used."""
        answer = self._entries.get((message, task))
        if answer is not None:
            self._entries.move_to_end((message, task))
        return answer

    def put(self, message: str, task: str, answer: LlmAnswer) -> None:
        """Remember an answer, evicting the least recently used beyond the bound."""
        self._entries[(message, task)] = answer
        self._entries.move_to_end((message, task))
        while len(self._entries) > self._max:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)
