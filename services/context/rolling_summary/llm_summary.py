"""The rolling summary written by the optional LLM (seed 003 §2-§3).

A prompt carries the previous summary and messages to fold in and asks for a JSON object:
a list of short bullets per heading and the memory cards worth keeping. A long history is
summarised in chunks (seed 003 §6: "超长对话会分块多次调用"): each chunk of at most
``MAX_PROMPT_MESSAGES`` messages and ``MAX_PROMPT_CHARS`` characters is folded into the
summary the previous chunk produced, oldest first, so every folded message is read. (One
prompt of the newest 200 used to fold the older ones in unread: of 300 messages, 0-95
never reached the LLM.) Anything unusable (no JSON object, wrong shapes) in any chunk
raises :class:`LlmUnavailable`, like a timeout, and the caller falls back to the
extractive summary.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, Final

from services.context.rolling_summary.cards import CARD_TYPES, MAX_CARDS, MAX_TAGS, Card
from services.context.rolling_summary.extractive import (
    HEADINGS,
    MAX_BULLET_CHARS,
    Candidate,
    Summary,
)
from services.context.shared.llm_client import ChatCompletionsClient, LlmUnavailable
from services.context.shared.messages import ChatMessage

PREVIEW_CHARS: Final = 500
MAX_PROMPT_MESSAGES: Final = 200
MAX_PROMPT_CHARS: Final = 40_000  # of message text per prompt (200 × PREVIEW_CHARS is 100k)
ANSWER_TOKENS: Final = 1500
# LLM bullets rank by their place in the answer; they all outrank nothing else.
LLM_BULLET_SCORE: Final = 10.0
_OBJECT = re.compile(r"\{.*\}", re.S)


def _line(index: int, message: ChatMessage) -> str:
    content = " ".join(message.content.split())
    if len(content) > PREVIEW_CHARS:
        content = content[:PREVIEW_CHARS] + "..."
    return f"[{index}] {message.role.upper()}: {content}"


def chunks(messages: Sequence[tuple[int, ChatMessage]]) -> list[list[str]]:
    """The prompt lines of every message, in order, cut into prompts' worth."""
    out: list[list[str]] = [[]]
    size = 0
    for index, message in messages:
        line = _line(index, message)
        if out[-1] and (len(out[-1]) >= MAX_PROMPT_MESSAGES or size + len(line) > MAX_PROMPT_CHARS):
            out.append([])
            size = 0
        out[-1].append(line)
        size += len(line)
    return [chunk for chunk in out if chunk]


def build_prompt(lines: Sequence[str], previous: Summary | None) -> str:
    """The summarising prompt for one chunk (headings and card types are the seed's)."""
    before = previous.render() if previous is not None else "(none)"
    shape = json.dumps(
        {
            **{heading: ["..."] for heading in HEADINGS},
            "cards": [{"content": "一句话", "type": "|".join(CARD_TYPES), "tags": ["关键词"]}],
        },
        ensure_ascii=False,
    )
    return f"""# 上下文汇总 / Rolling context summary

把下面的旧对话与之前的摘要合并为一个新的摘要（不要丢掉之前摘要里仍然有效的内容）。
Merge the earlier summary and the older messages below into ONE new summary.

## 之前的摘要 / Earlier summary
{before}

## 需要汇总的消息 / Messages to fold in
{chr(10).join(lines)}

## 返回格式 / Answer format
只返回一个 JSON 对象 / Return only one JSON object:
{shape}
每条要点一句话，保持原文语言 / one short sentence per bullet, in the conversation's language.
Goal 写用户的请求 / Goal: what the user asked for. cards 只记用户本人说出的事实、偏好、决定
（包括用户明确同意的建议）、待办和约束；不要记助手的建议、提问或客套话 / cards: only facts,
preferences, decisions (incl. suggestions the user explicitly accepted), TODOs and
constraints the USER stated; never the assistant's advice, questions or pleasantries.
"""


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list):
        return []
    out = []
    for item in value:
        if isinstance(item, str) and item.strip():
            text = " ".join(item.split())
            out.append(text[:MAX_BULLET_CHARS])
    return out


def parse_answer(text: str) -> tuple[list[Candidate], list[Card]]:
    """Bullets (as summary candidates, in answer order) and cards of the LLM's answer."""
    match = _OBJECT.search(text.replace("```json", "").replace("```", ""))
    if match is None:
        raise LlmUnavailable("no JSON object in the summary answer")
    try:
        payload = json.loads(match.group(0))
    except ValueError as exc:
        raise LlmUnavailable(f"summary answer is not JSON: {exc}") from exc
    if not isinstance(payload, dict):
        raise LlmUnavailable("summary answer is not a JSON object")
    found: list[Candidate] = []
    for heading in HEADINGS:
        for bullet in _strings(payload.get(heading)):
            found.append(Candidate(heading, bullet, LLM_BULLET_SCORE - len(found) / 1000, -1))
    if not found:
        raise LlmUnavailable("summary answer has no bullets under the headings")
    cards: list[Card] = []
    raw_cards = payload.get("cards")
    for raw in raw_cards if isinstance(raw_cards, list) else []:
        if not isinstance(raw, dict):
            continue
        content, kind = raw.get("content"), raw.get("type")
        if not isinstance(content, str) or not content.strip() or kind not in CARD_TYPES:
            continue
        tags = tuple(t for t in _strings(raw.get("tags")) if len(t) <= 64)[:MAX_TAGS]
        cards.append(Card(" ".join(content.split())[:MAX_BULLET_CHARS], str(kind), tags))
    return found, cards[:MAX_CARDS]


async def llm_summary(
    client: ChatCompletionsClient,
    messages: Sequence[tuple[int, ChatMessage]],
    previous: Summary | None,
) -> tuple[list[Candidate], list[Card]]:
    """Ask the LLM, a chunk at a time; raises :class:`LlmUnavailable` on any failure.

    The bullets are the last chunk's answer (each answer merges the summary so far with
    its chunk); cards are collected from every chunk, once per content."""
    found: list[Candidate] = []
    cards: dict[str, Card] = {}
    for lines in chunks(messages) or [[]]:
        answer = await client.complete(build_prompt(lines, previous), max_tokens=ANSWER_TOKENS)
        found, new_cards = parse_answer(answer)
        for card in new_cards:
            cards.setdefault(card.content, card)
        previous = _as_summary(found)
    return found, list(cards.values())[:MAX_CARDS]


def _as_summary(found: Sequence[Candidate]) -> Summary:
    summary = Summary()
    for candidate in found:
        summary.sections[candidate.heading].append(candidate.text)
    return summary
