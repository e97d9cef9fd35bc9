"""Recalled memories compressed to one short summary for the query (seed 004 §2, Sage's
``summarize_context``: "请生成一个不超过200字的上下文摘要，突出与当前查询相关的要点").

With an LLM configured it is asked with the seed's prompt; its answer is cut to
``MAX_CHARS`` (200) characters at the last sentence end that fits. Without one, or when
the LLM fails or times out (logged), the summary is extractive: the recalled memories'
sentences, those sharing the most character bigrams with the query first (ties by the
memory's rank), until 200 characters.

When (``CONTEXT_MEMORY_SUMMARY``, a request's ``summarize_memories``): ``always``;
``auto`` when the recalled text is longer than ``MEMORY_SUMMARY_AUTO_CHARS`` (seed 004
"动态压缩决策": ``if total_length > 5000: enable_llm_summary = True``); ``off`` never.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from services.context.shared.levels import sentences
from services.context.shared.llm_client import ChatCompletionsClient, LlmUnavailable
from services.text import normalize_content

log = logging.getLogger(__name__)

MAX_CHARS: Final = 200
MEMORY_SUMMARY_AUTO_CHARS: Final = 5000
PREVIEW_CHARS: Final = 500  # of each memory in the prompt
_SENTENCE_END = re.compile(r"[。！？!?；;.]")

SummaryMode = Literal["off", "auto", "always"]


@dataclass(frozen=True)
class MemorySummary:
    """The summary and how it was written."""

    text: str
    method: Literal["llm", "extractive"]
    memory_ids: tuple[int, ...]


def wanted(mode: SummaryMode, texts: Sequence[str]) -> bool:
    """Whether these recalled texts are summarised in this mode."""
    if mode == "always":
        return bool(texts)
    if mode == "auto":
        return sum(len(t) for t in texts) > MEMORY_SUMMARY_AUTO_CHARS
    return False


def build_prompt(texts: Sequence[str], query: str) -> str:
    """The seed's prompt (Sage MCP ``summarize_context``)."""
    history = "\n".join(f"- {' '.join(t.split())[:PREVIEW_CHARS]}" for t in texts)
    return f"""基于以下历史对话，生成一个简洁的上下文摘要，帮助回答用户的当前查询。
{history}
当前用户查询：{query}
请生成一个不超过{MAX_CHARS}字的上下文摘要，突出与当前查询相关的要点："""


def clip(text: str, limit: int = MAX_CHARS) -> str:
    """``text`` in at most ``limit`` characters, cut after a sentence end when one fits."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    head = text[:limit]
    ends = [m.end() for m in _SENTENCE_END.finditer(head)]
    return head[: ends[-1]] if ends and ends[-1] >= limit // 2 else head[: limit - 1] + "…"


def _bigrams(text: str) -> set[str]:
    folded = normalize_content(text)
    return {folded[i : i + 2] for i in range(len(folded) - 1)}


def extractive(texts: Sequence[str], query: str, limit: int = MAX_CHARS) -> str:
    """The sentences most about the query first (then the memory's rank), within ``limit``
    characters, joined in the order chosen."""
    wanted_grams = _bigrams(query)
    found: list[tuple[int, int, int, str]] = []
    for rank, text in enumerate(texts):
        for position, sentence in enumerate(sentences(text)):
            overlap = len(_bigrams(sentence) & wanted_grams)
            found.append((-overlap, rank, position, sentence))
    out: list[str] = []
    used = 0
    for _, _, _, sentence in sorted(found):
        if sentence in out:
            continue
        cost = len(sentence) + (1 if out else 0)
        if used + cost > limit:
            continue
        out.append(sentence)
        used += cost
    return " ".join(out) if out else clip(texts[0], limit) if texts else ""


async def summarize(
    llm: ChatCompletionsClient | None, texts: Sequence[str], ids: Sequence[int], query: str
) -> MemorySummary:
    """The ≤ 200-character summary of the recalled ``texts`` (best first) for ``query``."""
    if llm is not None:
        try:
            answer = await llm.complete(build_prompt(texts, query), max_tokens=400)
        except LlmUnavailable as exc:
            log.warning("LLM memory summary unavailable (%s); extractive instead", exc)
        else:
            if answer.strip():
                return MemorySummary(clip(answer), "llm", tuple(ids))
            log.warning("LLM memory summary was empty; extractive instead")
    return MemorySummary(extractive(texts, query), "extractive", tuple(ids))
