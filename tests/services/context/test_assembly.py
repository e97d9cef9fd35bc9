"""ContextAssembler without a database: placement, summary, levels, and the budget bound."""

from __future__ import annotations

import logging
import random
import re
from datetime import UTC, datetime

import pytest

from services.context.assembly.assembler import (
    MEMORY_BLOCK_NAME,
    AssemblyOptions,
    ContextAssembler,
    MemoryCandidate,
)
from services.context.assembly.budget import DEFAULT_SHARES
from services.context.rolling_summary.extractive import SUMMARY_NAME, sentence_score
from services.context.shared.levels import LevelCompressor
from services.context.shared.llm_client import ChatCompletionsClient
from services.context.shared.messages import ChatMessage
from services.context.shared.tokens import HEURISTIC
from services.core.errors import InvalidInput
from services.text.analysis import TextAnalyzer
from tests.providers import GIVE_UP_TIMEOUT, HOLD_SECONDS
from tests.services.context.llm_server import SummaryLlm

OPTIONS = AssemblyOptions(dict(DEFAULT_SHARES), 4, 0.7, 0.8, 1200)
WORDS = [
    "数据库",
    "迁移",
    "端口",
    "认证",
    "Redis",
    "deploy",
    "the",
    "config",
    "file",
    "we",
    "decided",
    "must",
    "TODO",
    "喜欢",
    "咖啡",
]


def assembler(analyzer: TextAnalyzer, llm: ChatCompletionsClient | None = None) -> ContextAssembler:
    def keywords(text: str) -> list[str]:
        return analyzer.topic_extractor.extract(text)

    return ContextAssembler(
        HEURISTIC, LevelCompressor(HEURISTIC.count, sentence_score, keywords), keywords, llm
    )


def conversation(turns: int) -> list[ChatMessage]:
    out = [ChatMessage("system", "You are Jarvis. 回答要简洁。")]
    for i in range(turns):
        out.append(ChatMessage("user", f"第 {i} 轮：我们决定用 Redis 做缓存，端口 {6000 + i}。"))
        out.append(
            ChatMessage("assistant", f"Noted, step {i}: updated config/cache.yaml as asked.")
        )
    out.append(ChatMessage("user", "缓存的端口是多少？"))
    return out


def memories(n: int) -> list[MemoryCandidate]:
    when = datetime(2026, 1, 1, tzinfo=UTC)
    return [
        MemoryCandidate(
            i + 1,
            f"记忆 {i}: 用户喜欢 Redis 和咖啡 " * (1 + i % 3),
            "fact",
            1.0 - i / 20,
            0.3 + (i % 5) / 10,
            when,
        )
        for i in range(n)
    ]


async def test_small_conversation_is_kept_whole_with_the_block_before_the_last_user(
    analyzer: TextAnalyzer,
) -> None:
    messages = conversation(2)
    result = await assembler(analyzer).assemble(
        messages, [5.0] * len(messages), memories(3), 4000, OPTIONS
    )
    names = [m.name for m in result.messages]
    assert names.count(MEMORY_BLOCK_NAME) == 1
    block_at = names.index(MEMORY_BLOCK_NAME)
    assert result.messages[block_at + 1] == messages[-1]  # just before the last user message
    assert result.messages[-1].role == "user"
    assert result.messages[block_at].content.startswith(
        "## Relevant Memories\n- [fact] (2026-01-01)"
    )
    assert [m for m in result.messages if m.name != MEMORY_BLOCK_NAME] == messages
    assert result.summary is None
    assert result.compression_rate == 0.0
    assert [m.id for m in result.memories] == [1, 2, 3]
    assert result.total_tokens <= 4000
    usage = result.usage
    assert usage["memories"].used == HEURISTIC.message(result.messages[block_at])
    assert usage["system"].used == HEURISTIC.message(messages[0])
    assert sum(u.allocated for u in usage.values()) == 4000


async def test_long_history_becomes_one_summary_and_old_blocks_go(analyzer: TextAnalyzer) -> None:
    messages = conversation(40)
    old_block = ChatMessage("assistant", "## Relevant Memories\n- stale", name=MEMORY_BLOCK_NAME)
    messages.insert(5, old_block)
    result = await assembler(analyzer).assemble(
        messages, [5.0] * len(messages), memories(5), 1500, OPTIONS
    )
    assert result.removed_blocks == [5]
    assert all("stale" not in m.content for m in result.messages)
    summaries = [m for m in result.messages if m.name == SUMMARY_NAME]
    assert len(summaries) == 1
    assert result.summary is not None
    assert result.messages[1] is summaries[0] or result.messages[1] == summaries[0]
    assert "### Decisions" in summaries[0].content
    assert result.summary.method == "extractive"
    assert result.messages[-1] == messages[-1]
    assert result.total_tokens <= 1500
    assert 0 < result.compression_rate < 1
    assert result.levels["history"] != "none"
    # The newest messages are kept verbatim.
    assert messages[-2] in result.messages
    assert messages[-3] in result.messages


async def test_a_previous_summary_is_folded_into_the_next(analyzer: TextAnalyzer) -> None:
    first = await assembler(analyzer).assemble(conversation(40), [5.0] * 81, [], 1200, OPTIONS)
    carried = [m for m in first.messages if m.name != MEMORY_BLOCK_NAME]
    later = (
        carried
        + [
            ChatMessage("assistant", f"Step {i}: we decided to switch to Postgres for storage {i}.")
            for i in range(40)
        ]
        + [ChatMessage("user", "存储用什么？")]
    )
    second = await assembler(analyzer).assemble(later, [5.0] * len(later), [], 1200, OPTIONS)
    summaries = [m for m in second.messages if m.name == SUMMARY_NAME]
    assert len(summaries) == 1
    assert second.summary is not None
    assert second.summary.previous_folded
    assert "Redis" in summaries[0].content
    assert "Postgres" in summaries[0].content
    assert second.total_tokens <= 1200


async def test_system_prompt_and_question_must_fit(analyzer: TextAnalyzer) -> None:
    messages = conversation(1)
    need = HEURISTIC.message(messages[0]) + HEURISTIC.message(messages[-1])
    with pytest.raises(InvalidInput, match="budget_tokens"):
        await assembler(analyzer).assemble(messages, [5.0] * 4, [], need - 1, OPTIONS)
    tight = await assembler(analyzer).assemble(messages, [5.0] * 4, memories(3), need, OPTIONS)
    assert tight.total_tokens <= need
    assert tight.messages[0] == messages[0]
    assert tight.messages[-1] == messages[-1]


async def test_unused_memory_budget_flows_to_history(analyzer: TextAnalyzer) -> None:
    messages = conversation(12)
    without = await assembler(analyzer).assemble(messages, [5.0] * len(messages), [], 1000, OPTIONS)
    assert without.summary is None  # half the budget was memories', now the history's
    assert without.usage["memories"].allocated == 0
    assert without.usage["history"].allocated > 300


@pytest.mark.parametrize("seed", range(60))
async def test_never_over_budget(analyzer: TextAnalyzer, seed: int) -> None:
    rng = random.Random(seed)
    roles = ["user", "assistant", "tool", "system"]
    messages = []
    for i in range(rng.randint(1, 60)):
        role = rng.choices(roles, weights=[5, 5, 2, 1])[0]
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 80)))
        name = (
            SUMMARY_NAME
            if rng.random() < 0.03
            else (MEMORY_BLOCK_NAME if rng.random() < 0.03 else None)
        )
        content = ("## Context Summary\n### Goal\n- " + words) if name == SUMMARY_NAME else words
        messages.append(ChatMessage(role, f"{i}. {content}。", name=name))
    scores = [rng.uniform(0, 10) for _ in messages]
    options = AssemblyOptions(
        dict(DEFAULT_SHARES),
        rng.randint(0, 6),
        rng.random(),
        rng.uniform(0.3, 1),
        rng.randint(50, 400),
    )
    budget = rng.randint(10, 3000)
    try:
        result = await assembler(analyzer).assemble(
            messages, scores, memories(rng.randint(0, 12)), budget, options
        )
    except InvalidInput:
        # Only when the system messages and the last user message alone are over budget.
        plain = [m for m in messages if m.name is None]
        users = [HEURISTIC.message(m) for m in plain if m.role == "user"]
        system = sum(HEURISTIC.message(m) for m in plain if m.is_system)
        assert system + (users[-1] if users else 0) > budget
        return
    assert HEURISTIC.messages(result.messages) == result.total_tokens
    assert result.total_tokens <= budget
    assert sum(u.used for u in result.usage.values()) == result.total_tokens
    assert [m.name for m in result.messages].count(SUMMARY_NAME) <= 1


async def test_llm_writes_the_summary_and_cards(
    analyzer: TextAnalyzer, summary_llm: SummaryLlm
) -> None:
    client = ChatCompletionsClient(summary_llm.base_url, "m", timeout=5)
    messages = conversation(40)
    result = await assembler(analyzer, client).assemble(messages, [5.0] * 81, [], 1500, OPTIONS)
    assert result.summary is not None
    assert result.summary.method == "llm"
    content = next(m.content for m in result.messages if m.name == SUMMARY_NAME)
    assert "### Goal\n- 把缓存迁移到 Redis" in content
    assert [c.memory_type for c in result.summary.cards] == ["decision"]
    prompt = summary_llm.requests[0]["messages"][0]["content"]
    assert "Context Summary" in prompt or "Rolling context summary" in prompt
    assert result.total_tokens <= 1500


async def test_llm_failure_falls_back_to_extractive(
    analyzer: TextAnalyzer, summary_llm: SummaryLlm, caplog: pytest.LogCaptureFixture
) -> None:
    summary_llm.mode = "error"
    client = ChatCompletionsClient(summary_llm.base_url, "m", timeout=5)
    with caplog.at_level(logging.WARNING):
        result = await assembler(analyzer, client).assemble(
            conversation(40), [5.0] * 81, [], 1500, OPTIONS
        )
    assert result.summary is not None
    assert result.summary.method == "extractive"
    assert "LLM summary unavailable" in caplog.text
    summary_llm.mode = "json"
    summary_llm.delay = HOLD_SECONDS  # held until the test ends: the timeout fires first
    slow = ChatCompletionsClient(summary_llm.base_url, "m", timeout=GIVE_UP_TIMEOUT)
    late = await assembler(analyzer, slow).assemble(conversation(40), [5.0] * 81, [], 1500, OPTIONS)
    assert late.summary is not None
    assert late.summary.method == "extractive"


async def test_the_llm_reads_every_message_it_folds_in(
    analyzer: TextAnalyzer, summary_llm: SummaryLlm
) -> None:
    # The audit: 300 messages at a budget of 3,000 tokens, and only messages 96-295 ever
    # reached the LLM; the older ones were folded into the summary unread.
    client = ChatCompletionsClient(summary_llm.base_url, "m", timeout=5)
    messages = conversation(150)[:-1]  # 1 system message + 300 turns
    result = await assembler(analyzer, client).assemble(
        messages, [5.0] * len(messages), [], 3000, OPTIONS
    )
    assert result.summary is not None
    assert result.summary.method == "llm"
    read = [
        [int(i) for i in re.findall(r"^\[(\d+)\] ", r["messages"][0]["content"], re.M)]
        for r in summary_llm.requests
    ]
    assert len(read) >= 2  # in chunks, oldest first
    assert [i for chunk in read for i in chunk] == result.summary.summarized
    assert result.summary.summarized[0] == 1
    # Each chunk after the first folds into the summary the one before wrote.
    assert "把缓存迁移到 Redis" in summary_llm.requests[1]["messages"][0]["content"]
