"""The phase switch without a database: which phase is current, what an earlier one keeps,
and the LLM writing the phase's summary against the loopback server."""

from __future__ import annotations

from dataclasses import replace

from services.context.importance.message_scorer import MessageImportanceScorer
from services.context.importance.phases import PhaseSwitcher, current_phase, earlier_phases
from services.context.shared.llm_client import ChatCompletionsClient
from services.context.shared.tokens import HEURISTIC
from tests.services.context.llm_server import SummaryLlm
from tests.services.context.seed_example import SEED_CONVERSATION, TASK

PHASED = [replace(m, phase="one" if i < 10 else "two") for i, m in enumerate(SEED_CONVERSATION)]


def test_the_current_phase_is_asked_for_or_the_last_named() -> None:
    assert current_phase(PHASED, None) == "two"
    assert current_phase(PHASED, "one") == "one"
    assert current_phase(SEED_CONVERSATION, None) is None
    assert earlier_phases(PHASED, "two") == {"one": list(range(10))}
    assert earlier_phases(SEED_CONVERSATION, None) == {}


async def test_the_llm_writes_the_phase_summary(
    scorer: MessageImportanceScorer,
    summary_llm: SummaryLlm,
) -> None:
    client = ChatCompletionsClient(summary_llm.base_url, "m", timeout=5)
    scores = scorer.score_rules(PHASED, scorer.task(TASK))
    condensed = await PhaseSwitcher(HEURISTIC, scorer.keywords, client).condense(
        PHASED, scores, None, 8.0
    )
    assert condensed is not None
    (switch,) = condensed.switches
    assert switch.method == "llm"
    assert switch.summary is not None
    assert switch.summary.content.startswith("[Phase one 总结]\n- 把缓存迁移到 Redis")
    asked = summary_llm.requests[0]["messages"][0]["content"]
    assert all(f"[{i}] " in asked for i in switch.summarized)
    assert condensed.origin.count(None) == 1
    assert [condensed.origin[p] for p in condensed.summaries] == [None]
    summary_llm.mode = "error"
    fallback = await PhaseSwitcher(HEURISTIC, scorer.keywords, client).condense(
        PHASED, scores, None, 8.0
    )
    assert fallback is not None
    assert fallback.switches[0].method == "extractive"
