"""The sliding window's triggers (seed 001 §4.1 窗口调整触发条件, seed 003 §1).

The history is one window until something starts a new one or the budget forces a summary:

- ``instruction``: the user says so, 「我们聊点别的」「换个话题」, "let's talk about
  something else", "change the subject", "new topic";
- ``marked``: the frontend marked a message as the start of a new topic
  (``topic_change: true``), for a change it knows of and the words do not say;
- ``budget``: the history passes ``CONTEXT_SUMMARY_THRESHOLD`` (80%) of its budget
  (seed 001 §4.1 "上下文接近预算上限");
- ``headroom``: less than ``CONTEXT_HEADROOM_SHARE`` (10%) of the whole budget, or
  ``CONTEXT_HEADROOM_TOKENS`` (2,000), would be left for the next turn (seed 003 §1).

A new topic folds the whole old window into the rolling summary, whatever the budget: the
conversation goes on from the message that changed the subject.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from services.context.shared.messages import ChatMessage

Trigger = Literal["instruction", "marked", "budget", "headroom"]

# The user asking to leave the current subject (Chinese and English).
_NEW_TOPIC: Final = re.compile(
    r"(聊|谈|说|讲)(点|些|一下)?(别的|其他的?|其它的?)|换(个|一个)?(话题|主题)|新(的)?话题|不(聊|谈|说)这个了"
    r"|\blet'?s (talk|chat) about something (else|different)\b|\bchange (the|of) (subject|topic)\b"
    r"|\b(a )?(new|different) (topic|subject)\b|\bon another (topic|note)\b"
    r"|\bsomething (else|completely different) (now|then)\b",
    re.I,
)


def asks_for_new_topic(text: str) -> bool:
    """The user asks to change the subject (「换个话题」, "let's talk about something else")."""
    return bool(_NEW_TOPIC.search(text))


@dataclass(frozen=True)
class WindowStart:
    """Where the current window starts (a message index) and what started it."""

    index: int
    trigger: Trigger


def window_start(messages: Sequence[ChatMessage], history: Sequence[int]) -> WindowStart | None:
    """The latest history message that starts a new topic, if any: marked by the
    frontend, or a user message asking for one."""
    for index in reversed(history):
        message = messages[index]
        if message.topic_change:
            return WindowStart(index, "marked")
        if message.role == "user" and asks_for_new_topic(message.content):
            return WindowStart(index, "instruction")
    return None


def headroom_needed(budget_tokens: int, share: float, tokens: int) -> int:
    """Tokens that must be left for the next turn: the larger of ``share`` of the budget
    and ``tokens`` (seed 003: "保留 10%/至少 2000 tokens")."""
    return max(math.ceil(share * budget_tokens), tokens)
