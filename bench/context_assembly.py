"""Context assembly for a long conversation against a large tenant.

``ContextService.assemble`` for a 200-message conversation (Chinese and English, user and
assistant turns drawn from the bench vocabulary) with a 4,000-token budget, against the
tenant's stored memories, on the rule layer (no LLM). Each query becomes the last user
message, so every assembly recalls for a different question. Recall tracking and memory
cards are off, so the step leaves the data as loaded. One scorer serves every assembly,
as the server holds one: the resent history is analysed once, as in a chat. The floor is
the recall it contains (``recall_memories`` top 10, track=False): ratio = assembly p50 /
floor p50. The target is an assembly p50 under ``TARGET_P50_MS``.
"""

from __future__ import annotations

import functools
from typing import Any, Final

from bench.data import Generator
from bench.measure import LatencySeries, ratio, timed
from bench.scenarios import TOP_K, Context, recall_once
from services.context.assembly.service import ContextRequest
from services.context.shared.messages import ChatMessage

MESSAGES: Final = 200
BUDGET_TOKENS: Final = 4000
TARGET_P50_MS: Final = 100.0


def conversation(gen: Generator, question: str) -> list[ChatMessage]:
    """A system prompt, 198 alternating turns, and ``question`` as the last user message."""
    out = [ChatMessage("system", "You are Jarvis, a personal assistant. 回答简洁。")]
    while len(out) < MESSAGES - 1:
        content, _ = gen.text()
        out.append(ChatMessage("user" if len(out) % 2 else "assistant", content))
    out.append(ChatMessage("user", question))
    return out


async def context_assembly(ctx: Context, user: str, size: int, queries: int) -> dict[str, Any]:
    """Assembly latency for ``user`` (``size`` memories) next to its recall alone."""
    settings = ctx.settings.model_copy(
        # The floor's recall depth (CONTEXT_MEMORY_TOP_K's default is seed 003's 5).
        update={
            "context_track_recalls": False,
            "context_memory_cards": False,
            "context_memory_top_k": TOP_K,
        }
    )
    # The root's services with these settings (no LLM configured: the scorer's rules).
    services = ctx.services.reconfigured(settings)
    gen = Generator(ctx.seed + size + 5)
    history = conversation(gen, "")[:-1]
    series = {"floor": LatencySeries(), "assemble": LatencySeries()}
    tokens: list[int] = []

    async def assemble(question: str) -> None:
        messages = [*history, ChatMessage("user", question)]
        async with ctx.db.unit_of_work() as session:
            service = services.context(session)
            result = await service.assemble(user, ContextRequest(messages, BUDGET_TOKENS))
        tokens.append(result.total_tokens)

    async def floor(question: str) -> None:
        await recall_once(ctx, user, question, track=False)

    await assemble(gen.query())  # warm: caches, pool, jieba
    for _ in range(ctx.reps):
        for s in series.values():
            s.new_rep()
        for i in range(queries):
            question = gen.query()
            order = [("floor", floor), ("assemble", assemble)]
            for name, action in order[i % 2 :] + order[: i % 2]:
                series[name].add(await timed(functools.partial(action, question)))
    result: dict[str, Any] = {
        "user_id": user,
        "memories": size,
        "messages": MESSAGES,
        "budget_tokens": BUDGET_TOKENS,
        "max_total_tokens": max(tokens),
        "target_p50_ms": TARGET_P50_MS,
    }
    result.update({name: s.summary_ms() for name, s in series.items()})
    result["ratio_p50"] = ratio(result["assemble"]["p50"], result["floor"]["p50"])
    result["meets_target"] = result["assemble"]["p50"] < TARGET_P50_MS
    return result
