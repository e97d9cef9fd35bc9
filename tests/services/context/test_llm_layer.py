"""The optional LLM layer against a real loopback chat-completions server."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import httpx
import pytest

from api.app import create_app
from services.context.importance.compress import smart_compress
from services.context.importance.llm_scorer import LlmMessageScorer, parse_answers
from services.context.importance.message_scorer import MessageImportanceScorer, build_message_scorer
from services.context.shared.llm_client import ChatCompletionsClient
from services.context.shared.messages import ChatMessage
from services.core.db import Database
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer
from tests.conftest import FakeClock
from tests.providers import GIVE_UP_TIMEOUT, HOLD_SECONDS
from tests.services.context.llm_server import FakeLlm, serve
from tests.services.context.seed_example import SEED_CONVERSATION, TASK
from tests.timing import lifespan

# Confident by rules (tool call, pleasantry) and uncertain (plain narration).
MESSAGES = [
    ChatMessage("tool", "edit_file(app/main.py) → added retry logic"),
    ChatMessage("assistant", "The weather looked odd in the logs, worth a second look later"),
    ChatMessage("user", "thanks!"),
    ChatMessage("assistant", "Interesting, the numbers moved around a bit overnight"),
]
UNCERTAIN = [1, 3]


@pytest.fixture
def llm() -> Iterator[FakeLlm]:
    with serve(FakeLlm()) as server:
        yield server


def scorer_for(
    analyzer: TextAnalyzer, llm: FakeLlm, *, timeout: float = 5.0, batch: int = 50
) -> MessageImportanceScorer:
    settings = Settings(
        _env_file=None,
        llm_base_url=llm.base_url,
        llm_api_key="k-123",
        llm_timeout=timeout,
        message_score_llm_batch=batch,
    )
    return build_message_scorer(analyzer, settings)


async def test_only_uncertain_messages_go_to_the_llm_in_one_prompt(
    analyzer: TextAnalyzer, llm: FakeLlm
) -> None:
    scorer = scorer_for(analyzer, llm)
    scores = await scorer.score(MESSAGES, scorer.task("retry logic for the API client"))
    assert [s.method for s in scores] == ["rule", "llm", "rule", "llm"]
    assert len(llm.requests) == 1
    assert llm.asked_indexes() == UNCERTAIN
    request = llm.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["authorization"] == "Bearer k-123"
    assert request["model"] == "MiniMax-M2"
    llm_scored = scores[1]
    assert llm_scored.llm_score == 9.0
    assert llm_scored.reason == "从 LLM"
    assert llm_scored.confidence == 0.3  # the rule layer's, which decides the blend
    # The LLM refines the share the rules are unsure of, then the recency bonus.
    assert llm_scored.total == pytest.approx(
        0.3 * llm_scored.rule_score + 0.7 * 9.0 + llm_scored.recency_bonus, abs=1e-3
    )


async def test_cache_and_incremental_scoring(analyzer: TextAnalyzer, llm: FakeLlm) -> None:
    scorer = scorer_for(analyzer, llm)
    task = scorer.task("retry logic for the API client")
    await scorer.score(MESSAGES, task)
    again = await scorer.score(MESSAGES, task)
    assert [s.method for s in again] == ["rule", "cache", "rule", "cache"]
    assert len(llm.requests) == 1  # nothing new to ask

    grown = [*MESSAGES, ChatMessage("assistant", "Anyway, the colours on the dashboard changed")]
    scores = await scorer.score(grown, task)
    assert len(llm.requests) == 2
    assert llm.asked_indexes() == [4]  # only the new message
    assert scores[4].method == "llm"

    # Another task is another question: the same messages are asked again.
    await scorer.score(MESSAGES, scorer.task("something else entirely"))
    assert llm.asked_indexes() == UNCERTAIN


async def test_the_cache_keys_a_message_by_its_text_not_its_id(
    analyzer: TextAnalyzer, llm: FakeLlm
) -> None:
    # Ids are the caller's ("m1" in every conversation) and the cache is the process's:
    # keyed by id, another conversation's "m1" got this one's answer and its reason.
    scorer = scorer_for(analyzer, llm)
    task = scorer.task("retry logic for the API client")
    first = ChatMessage("assistant", "The weather looked odd in the logs", id="m1")
    other = ChatMessage("assistant", "Interesting, the numbers moved overnight", id="m1")
    assert [s.method for s in await scorer.score([first], task)] == ["llm"]
    assert [s.method for s in await scorer.score([other], task)] == ["llm"]
    assert len(llm.requests) == 2
    # The same words under another id (or none) are the same question: answered from cache.
    again = ChatMessage("assistant", "The weather looked odd in the logs", id="m7")
    assert [s.method for s in await scorer.score([again], task)] == ["cache"]
    assert len(llm.requests) == 2


async def test_batches_split_large_conversations(analyzer: TextAnalyzer, llm: FakeLlm) -> None:
    scorer = scorer_for(analyzer, llm, batch=1)
    scores = await scorer.score(MESSAGES, scorer.task("retry logic"))
    assert len(llm.requests) == 2
    assert [s.method for s in scores] == ["rule", "llm", "rule", "llm"]


@pytest.mark.parametrize(
    ("mode", "methods"),
    [
        ("fenced", ["rule", "llm", "rule", "llm"]),
        ("dimensions", ["rule", "llm", "rule", "llm"]),
        ("malformed", ["rule", "rule", "rule", "rule"]),
        ("error", ["rule", "rule", "rule", "rule"]),
        ("no_choices", ["rule", "rule", "rule", "rule"]),
    ],
)
async def test_answers_of_every_shape(
    analyzer: TextAnalyzer,
    llm: FakeLlm,
    caplog: pytest.LogCaptureFixture,
    mode: str,
    methods: list[str],
) -> None:
    llm.mode = mode
    scorer = scorer_for(analyzer, llm)
    rules_only = scorer.score_rules(MESSAGES, scorer.task("retry logic"))
    with caplog.at_level(logging.WARNING, logger="services.context"):
        scores = await scorer.score(MESSAGES, scorer.task("retry logic"))
    assert [s.method for s in scores] == methods
    if "llm" not in methods:
        assert [s.total for s in scores] == [s.total for s in rules_only]
        assert "using rules" in caplog.text or "rule scores" in caplog.text
    if mode == "dimensions":
        # Four dimensions instead of one score: their default-weighted mean.
        assert scores[1].llm_score == pytest.approx(
            (9 * 0.35 + 8 * 0.25 + 1 * 0.2 + 6 * 0.15) / 0.95, abs=1e-3
        )


async def test_slow_llm_times_out_to_rules(
    analyzer: TextAnalyzer, llm: FakeLlm, caplog: pytest.LogCaptureFixture
) -> None:
    llm.delay = HOLD_SECONDS  # held until the test ends: the 0.2 s timeout fires first
    scorer = scorer_for(analyzer, llm, timeout=GIVE_UP_TIMEOUT)
    with caplog.at_level(logging.WARNING, logger="services.context"):
        scores = await scorer.score(MESSAGES, scorer.task("retry logic"))
    assert {s.method for s in scores} == {"rule"}
    assert "ReadTimeout" in caplog.text


async def test_truncated_array_keeps_the_complete_objects(
    analyzer: TextAnalyzer, llm: FakeLlm, caplog: pytest.LogCaptureFixture
) -> None:
    llm.mode = "truncated"
    client = ChatCompletionsClient(llm.base_url, "m", timeout=5)
    items = [(i, ChatMessage("assistant", f"note {i}")) for i in range(6)]
    with caplog.at_level(logging.WARNING, logger="services.context"):
        answers = await LlmMessageScorer(client).score(items, "task")
    assert 0 < len(answers) < 6
    assert sorted(answers) == list(range(len(answers)))  # a prefix: the cut objects are gone
    assert "covered" in caplog.text


async def test_unreachable_llm_falls_back(analyzer: TextAnalyzer) -> None:
    settings = Settings(_env_file=None, llm_base_url="http://127.0.0.1:9/v1", llm_timeout=1)
    scorer = build_message_scorer(analyzer, settings)
    scores = await scorer.score(MESSAGES, scorer.task("retry logic"))
    assert {s.method for s in scores} == {"rule"}


def test_no_llm_configured_means_rules_only(analyzer: TextAnalyzer, settings: Settings) -> None:
    assert ChatCompletionsClient.from_settings(settings) is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('[{"index": 0, "score": 9}]', {0: 9.0}),
        ('```json\n[{"index": "1", "score": 3}]\n```', {1: 3.0}),
        ('{"scores": [{"index": 0, "score": 4}]}', {0: 4.0}),
        ('{"index": 0, "score": 5}\n{"index": 1, "score": 6}', {0: 5.0, 1: 6.0}),
        ('[{"index": 0, "score": 42}, {"index": 1, "score": -3}]', {0: 10.0, 1: 0.0}),
        ('[{"index": 7, "score": 5}, {"index": true, "score": 5}]', {}),  # not asked / bool
        ('[{"index": 0, "score": "high"}, {"index": 1}]', {}),
        ('[{"index": 0, "score": NaN}]', {}),
        ("no json at all", {}),
        ("", {}),
    ],
)
def test_parse_answers(text: str, expected: dict[int, float]) -> None:
    answers = parse_answers(text, {0, 1})
    assert {i: a.score for i, a in answers.items()} == expected


async def test_persisted_llm_answers_survive_a_restart(
    db: Database, clock: FakeClock, llm: FakeLlm
) -> None:
    settings = Settings(
        _env_file=None,
        scheduler_enabled=False,
        freeze_startup_heap=False,
        llm_base_url=llm.base_url,
    )
    payload = {
        "messages": [{"role": m.role, "content": m.content} for m in MESSAGES],
        "task_context": "retry logic",
        "conversation_id": "conv-llm",
    }
    methods = []
    for _ in range(2):  # two app instances: the second starts with an empty memory cache
        app = create_app(settings, db=db, clock=clock)
        async with (
            lifespan(app),
            httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t") as http,
        ):
            resp = await http.post("/v1/users/alice/messages/score", json=payload)
            assert resp.status_code == 200, resp.text
            methods.append([s["method"] for s in resp.json()["scores"]])
    assert methods == [["rule", "llm", "rule", "llm"], ["rule", "cache", "rule", "cache"]]
    assert len(llm.requests) == 1


async def test_the_prompt_is_the_seeds(analyzer: TextAnalyzer, llm: FakeLlm) -> None:
    scorer = scorer_for(analyzer, llm)
    long = ChatMessage("assistant", "甲" * 199 + "乙" + "丙" * 100)
    task = scorer.task("重构认证系统", phase="Phase 2: JWT 迁移")
    await scorer.score([long], task)
    prompt = llm.requests[0]["messages"][0]["content"]
    # Cut at 200 characters as the seed cuts them, not 300.
    assert "[0] ASSISTANT: " + "甲" * 199 + "乙..." in prompt
    assert "丙" not in prompt
    # The task, the current phase, the rubric's five bands and the seed's answer format.
    assert "## 任务上下文\n重构认证系统\n当前Phase: Phase 2: JWT 迁移" in prompt
    for band in ("9-10分：核心关键信息", "7-8分：重要技术细节", "5-6分：一般性内容"):
        assert band in prompt
    assert "3-4分：低价值信息" in prompt
    assert "0-2分：噪音/无关内容" in prompt
    assert '{"index": 0, "score": 9.5, "reason": "用户核心需求定义"}' in prompt
    assert llm.requests[0]["temperature"] == 0.3  # the seed's: low for stable scores


async def test_a_phase_is_another_question(analyzer: TextAnalyzer, llm: FakeLlm) -> None:
    scorer = scorer_for(analyzer, llm)
    message = [ChatMessage("assistant", "The numbers moved around overnight")]
    await scorer.score(message, scorer.task("retry logic", phase="one"))
    assert [
        s.method for s in await scorer.score(message, scorer.task("retry logic", phase="one"))
    ] == ["cache"]
    await scorer.score(message, scorer.task("retry logic", phase="two"))
    assert len(llm.requests) == 2


async def test_an_llm_rating_filler_9_cannot_push_out_the_core_request(
    analyzer: TextAnalyzer, llm: FakeLlm
) -> None:
    # The audit: an LLM that rates every uncertain message 9 (the seed's own filler,
    # 「好的，我先了解现有代码...」, 「发现还需要修改config...」, 「测试一下能不能用」) outranked
    # the user's request, and compressing the seed's example dropped message 0.
    for rating in (9.0, 10.0):
        llm.score = rating
        scorer = scorer_for(analyzer, llm)
        scores = await scorer.score(SEED_CONVERSATION, scorer.task(TASK))
        asked = {s.index for s in scores if s.method == "llm"}
        assert {1, 8, 11} <= asked
        assert 0 not in asked  # the rules are sure of the request
        assert all(scores[0].total > scores[i].total for i in asked)
        kept = smart_compress(SEED_CONVERSATION, scores, target_count=8, preserve_recent=3).kept
        assert 0 in kept
