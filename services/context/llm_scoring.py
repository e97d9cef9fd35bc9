"""The optional LLM layer of seed 000: one batched prompt, robust parsing of the answer.

The prompt is the seed's ("消息重要度评分任务"), asking per message for the four content
dimensions on 0-10 (recency is positional and always computed locally) and a reason.
Models wrap JSON in code fences, add prose after it, run out of tokens mid-array or return
one object per line; :func:`parse_answers` takes whatever complete objects it can find and
ignores the rest, so a partial answer still scores the messages it covers.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Sequence
from typing import Any, Final

from services.context.cache import LlmAnswer
from services.context.llm_client import ChatCompletionsClient, LlmUnavailable
from services.context.messages import ChatMessage

log = logging.getLogger(__name__)

PREVIEW_CHARS: Final = 300  # the seed truncates long messages in the prompt
_FIELDS: Final = ("relevance", "information", "operation", "decision")
_FENCE = re.compile(r"```(?:json)?", re.I)
_OBJECT = re.compile(r"\{[^{}]*\}")


def build_prompt(items: Sequence[tuple[int, ChatMessage]], task_context: str) -> str:
    """The seed's scoring prompt for the numbered messages."""
    lines = []
    for index, message in items:
        content = message.content.replace("\n", " ")
        if len(content) > PREVIEW_CHARS:
            content = content[:PREVIEW_CHARS] + "..."
        who = message.role.upper() + (f"({message.name})" if message.name else "")
        lines.append(f"[{index}] {who}: {content}")
    history = "\n".join(lines)
    return f"""# 消息重要度评分任务 / Message importance scoring

## 任务上下文 / Task
{task_context or "(none)"}

## 评分标准（每个维度 0-10 分）
- relevance 任务相关性: 与当前任务目标的相关程度
- information 信息价值: 关键信息量（文件路径、配置参数、代码、错误信息、人名、日期、数字）
- operation 操作记录: 是否记录重要操作（创建/修改/删除文件、执行命令）
- decision 决策节点: 是否包含重要决策、架构选择或用户的明确要求
寒暄（"好的"、"谢谢"）和无关内容各维度 0-2 分。

## 对话历史
{history}

## 返回格式
只返回 JSON 数组，每条消息一个对象，不要其他内容：
[{{"index": 0, "relevance": 9, "information": 7, "operation": 0, "decision": 8,
  "reason": "用户核心需求"}}]
"""


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return min(10.0, max(0.0, number)) if math.isfinite(number) else None


def _answer(item: dict[str, Any]) -> LlmAnswer | None:
    values = [_number(item.get(name)) for name in _FIELDS]
    if any(v is None for v in values):
        # A model that gives only the seed's single "score" still ranks the message.
        score = _number(item.get("score"))
        if score is None:
            return None
        values = [score] * len(_FIELDS)
    reason = item.get("reason")
    relevance, information, operation, decision = (float(v or 0.0) for v in values)
    return LlmAnswer(
        relevance, information, operation, decision, str(reason)[:200] if reason else None
    )


def _objects(text: str) -> list[Any]:
    cleaned = _FENCE.sub("", text)
    start, end = cleaned.find("["), cleaned.rfind("]")
    if 0 <= start < end:
        try:
            parsed = json.loads(cleaned[start : end + 1])
        except json.JSONDecodeError:
            pass
        else:
            if isinstance(parsed, list):
                return parsed
    try:
        whole = json.loads(cleaned)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict):
        nested = next((v for v in whole.values() if isinstance(v, list)), None)
        return nested if nested is not None else [whole]
    # Truncated or prose-wrapped: every flat object that parses on its own.
    found = []
    for match in _OBJECT.finditer(cleaned):
        try:
            found.append(json.loads(match.group()))
        except json.JSONDecodeError:
            continue
    return found


def parse_answers(text: str, expected: set[int]) -> dict[int, LlmAnswer]:
    """Index → answer for every well-formed entry about a message that was asked about."""
    answers: dict[int, LlmAnswer] = {}
    for item in _objects(text):
        if not isinstance(item, dict):
            continue
        index = item.get("index")
        if isinstance(index, str) and index.strip().isdigit():
            index = int(index)
        if not isinstance(index, int) or isinstance(index, bool) or index not in expected:
            continue
        answer = _answer(item)
        if answer is not None:
            answers[index] = answer
    return answers


class LlmMessageScorer:
    """Scores many messages with one chat-completions call per batch."""

    def __init__(self, client: ChatCompletionsClient, batch_size: int = 50) -> None:
        self.client = client
        self.batch_size = batch_size

    async def score(
        self, items: Sequence[tuple[int, ChatMessage]], task_context: str
    ) -> dict[int, LlmAnswer]:
        """Answers for the messages the LLM scored. A failed batch is logged and left out,
        so its messages keep their rule scores; the other batches still count."""
        answers: dict[int, LlmAnswer] = {}
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            try:
                text = await self.client.complete(
                    build_prompt(batch, task_context), max_tokens=60 * len(batch) + 200
                )
            except LlmUnavailable as exc:
                log.warning("LLM scoring failed for %d messages, using rules: %s", len(batch), exc)
                continue
            parsed = parse_answers(text, {index for index, _ in batch})
            if len(parsed) < len(batch):
                log.warning(
                    "LLM answer covered %d of %d messages; the rest keep rule scores",
                    len(parsed),
                    len(batch),
                )
            answers.update(parsed)
        return answers
