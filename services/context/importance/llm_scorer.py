"""The optional LLM layer of seed 000: one batched prompt, robust parsing of the answer.

The prompt is the seed's ("消息重要度评分任务", ``_build_scoring_prompt``): the task context
and the current phase, the seed's 0-10 rubric in five bands, every message cut at 200
characters as the seed cuts it, and the seed's answer format, one ``{"index", "score",
"reason"}`` per message. Recency is positional and always added locally.

Models wrap JSON in code fences, add prose after it, run out of tokens mid-array or return
one object per line; :func:`parse_answers` takes whatever complete objects it can find and
ignores the rest, so a partial answer still scores the messages it covers. A model that
answers the four content dimensions instead of one score is read by their default-weighted
mean.
"""

from __future__ import annotations

import json
import logging
import math
import re
from collections.abc import Sequence
from typing import Any, Final

from services.context.importance.llm_answer_cache import LlmAnswer
from services.context.importance.weights import CONTENT, TASK_TYPE_WEIGHTS, content_score
from services.context.shared.llm_client import ChatCompletionsClient, LlmUnavailable
from services.context.shared.messages import ChatMessage

log = logging.getLogger(__name__)

PREVIEW_CHARS: Final = 200  # seed: ``if len(content) > 200: content = content[:200] + "..."``
_FENCE = re.compile(r"```(?:json)?", re.I)
_OBJECT = re.compile(r"\{[^{}]*\}")


def build_prompt(
    items: Sequence[tuple[int, ChatMessage]], task_context: str, current_phase: str | None = None
) -> str:
    """The seed's scoring prompt for the numbered messages."""
    lines = []
    for index, message in items:
        content = message.content.replace("\n", " ")
        if len(content) > PREVIEW_CHARS:
            content = content[:PREVIEW_CHARS] + "..."
        who = message.role.upper() + (f"({message.name})" if message.name else "")
        lines.append(f"[{index}] {who}: {content}")
    history = "\n".join(lines)
    phase = f"\n当前Phase: {current_phase}" if current_phase else ""
    return f"""# 消息重要度评分任务

## 任务上下文
{task_context or "(none)"}{phase}

## 评分标准（0-10分）

### 9-10分：核心关键信息
- 用户的核心需求和明确指令
- 重要的架构决策
- 关键文件的创建/修改记录
- Phase目标定义

### 7-8分：重要技术细节
- 配置参数和环境信息
- 有价值的代码片段
- 技术方案讨论
- 工具执行的关键结果

### 5-6分：一般性内容
- 探索性讨论
- 中间过程信息
- 一般性操作记录

### 3-4分：低价值信息
- 重复的内容
- 已被后续信息覆盖的旧信息
- 失败的尝试记录

### 0-2分：噪音/无关内容
- 纯寒暄（"好的"、"谢谢"等）
- 完全无关的讨论
- 错误的信息

## 对话历史

{history}

## 任务要求

1. 对每条消息评分（0-10分，保留1位小数）
2. 简要说明评分理由
3. 只返回JSON格式，不要其他解释

## 返回格式

```json
[
    {{"index": 0, "score": 9.5, "reason": "用户核心需求定义"}},
    {{"index": 1, "score": 3.0, "reason": "探索性问题，已被后续覆盖"}},
    ...
]
```

只返回JSON数组，不要任何其他内容。
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
    score = _number(item.get("score"))
    if score is None:
        # A model that answers the content dimensions instead still ranks the message.
        values = [_number(item.get(name)) for name in CONTENT]
        if any(v is None for v in values):
            return None
        dimensions = {name: float(v or 0.0) for name, v in zip(CONTENT, values, strict=True)}
        score = content_score({**dimensions, "recency": 0.0}, TASK_TYPE_WEIGHTS["default"])
    reason = item.get("reason")
    return LlmAnswer(score, str(reason)[:200] if reason else None)


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
        self,
        items: Sequence[tuple[int, ChatMessage]],
        task_context: str,
        current_phase: str | None = None,
    ) -> dict[int, LlmAnswer]:
        """Answers for the messages the LLM scored. A failed batch is logged and left out,
        so its messages keep their rule scores; the other batches still count."""
        answers: dict[int, LlmAnswer] = {}
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            try:
                text = await self.client.complete(
                    build_prompt(batch, task_context, current_phase),
                    max_tokens=60 * len(batch) + 200,
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
