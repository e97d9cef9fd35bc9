"""POST /v1/users/{id}/messages/score and /compress, and the admin views of what they persisted."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import httpx
import pytest

from services.context.shared.tokens import get_token_estimator
from services.core.settings import Settings
from tests.api.helpers import Json, assert_error, body
from tests.services.context.seed_example import SEED_CONVERSATION, SEED_KEPT, TASK

SEED_MESSAGES = [{k: v for k, v in asdict(m).items() if v is not None} for m in SEED_CONVERSATION]


async def score(client: httpx.AsyncClient, **payload: Any) -> Json:
    result: Json = body(await client.post("/v1/users/alice/messages/score", json=payload), 200)
    return result


async def compress(client: httpx.AsyncClient, **payload: Any) -> Json:
    result: Json = body(await client.post("/v1/users/alice/messages/compress", json=payload), 200)
    return result


async def test_score_returns_dimensions_confidence_and_method(client: httpx.AsyncClient) -> None:
    result = await score(client, messages=SEED_MESSAGES, task_context=TASK)
    assert result["task_type"] == "default"
    scores = result["scores"]
    assert [s["index"] for s in scores] == list(range(15))
    first = scores[0]
    assert set(first["dimensions"]) == {
        "relevance",
        "information",
        "operation",
        "decision",
        "recency",
    }
    # rule score = the rule's seed score + (the dimensions' weighted mean − 5), plus the
    # recency bonus (0 for the first message)
    weights = {"relevance": 0.35, "information": 0.25, "operation": 0.2, "decision": 0.15}
    mean = sum(first["dimensions"][d] * w for d, w in weights.items()) / 0.95
    assert first["rule_kind"] == "request"
    assert first["rule_score"] == pytest.approx(9.0 + mean - 5.0, abs=1e-3)
    assert first["recency_bonus"] == 0.0
    assert first["score"] == first["rule_score"]
    assert first["llm_score"] is None
    assert scores[14]["recency_bonus"] == 1.0
    assert first["method"] == "rule"
    assert first["confidence"] == 0.9
    assert "request" in first["rules"]
    assert scores[14]["rules"] == ["pleasantry"]


async def test_task_type_changes_the_weights(client: httpx.AsyncClient) -> None:
    default = (await score(client, messages=SEED_MESSAGES, task_context=TASK))["scores"]
    refactor = await score(client, messages=SEED_MESSAGES, task_context=TASK, task_type="代码重构")
    assert refactor["task_type"] == "refactor"
    edit = refactor["scores"][5]
    assert edit["score"] > default[5]["score"]  # operations weigh 0.30 instead of 0.20


async def test_compress_keeps_the_seeds_eight_in_order(client: httpx.AsyncClient) -> None:
    result = await compress(client, messages=SEED_MESSAGES, task_context=TASK, target_count=8)
    assert [m["content"] for m in result["messages"]] == [
        SEED_MESSAGES[i]["content"] for i in SEED_KEPT
    ]
    assert [d["index"] for d in result["dropped"]] == [1, 4, 6, 7, 8, 9, 11]
    assert all(isinstance(d["score"], float) for d in result["dropped"])
    assert result["compression_rate"] == pytest.approx(8 / 15, abs=1e-4)
    assert result["target_exceeded_by"] == 0
    assert result["note"] is None


async def test_the_newest_are_kept_past_the_target_and_the_answer_says_why(
    client: httpx.AsyncClient,
) -> None:
    messages = SEED_MESSAGES[:4]
    result = await compress(client, messages=messages, target_count=2, preserve_recent=3)
    assert result["kept"] == [1, 2, 3]
    assert result["target_exceeded_by"] == 1
    assert "preserve_recent" in result["note"]
    assert "target_count 2" in result["note"]


async def test_compress_to_a_token_budget_never_exceeds_it(
    client: httpx.AsyncClient, settings: Settings
) -> None:
    system = {"role": "system", "content": "You are a careful coding assistant."}
    messages = [system, *SEED_MESSAGES]
    estimator = get_token_estimator(settings.token_estimator)
    for budget in (40, 60, 90, 150):
        result = await compress(
            client, messages=messages, task_context=TASK, budget_tokens=budget, preserve_recent=1
        )
        kept = result["messages"]
        assert kept[0] == system  # system messages always stay
        used = sum(estimator.count(m["content"]) + 4 for m in kept)
        assert used == result["kept_tokens"] <= budget
        assert result["kept"] == sorted(result["kept"])


@pytest.mark.parametrize(
    ("payload", "fragment"),
    [
        ({"messages": []}, "messages"),
        ({"messages": [{"role": "robot", "content": "x"}]}, "role"),
        ({"messages": [{"role": "user"}]}, "content"),
        ({"messages": [{"role": "user", "content": "a\u0000b"}]}, "NUL"),
        ({"messages": [{"role": "user", "content": "x"}], "task_type": "poetry"}, "task_type"),
        ({"messages": [{"role": "user", "content": "x"}], "conversation_id": "a b"}, "conv"),
        ({"messages": [{"role": "user", "content": "x"}], "extra": 1}, "extra"),
    ],
)
async def test_score_rejects_bad_input(
    client: httpx.AsyncClient, payload: Json, fragment: str
) -> None:
    resp = await client.post("/v1/users/alice/messages/score", json=payload)
    error = assert_error(resp, 422, "invalid_input")
    assert fragment.lower() in str(error).lower()


@pytest.mark.parametrize(
    ("extra", "fragment"),
    [
        ({}, "target_count or budget_tokens"),
        ({"budget_tokens": 0}, "budget_tokens"),
        ({"budget_tokens": 5}, "system"),  # below the system prompt's own size
        ({"target_count": 0}, "target_count"),
        ({"target_count": 1, "preserve_recent": -1}, "preserve_recent"),
    ],
)
async def test_compress_rejects_bad_budgets(
    client: httpx.AsyncClient, extra: Json, fragment: str
) -> None:
    messages = [
        {"role": "system", "content": "Always answer in English, briefly and politely."},
        {"role": "user", "content": "hello"},
    ]
    resp = await client.post(
        "/v1/users/alice/messages/compress", json={"messages": messages, **extra}
    )
    error = assert_error(resp, 422, "invalid_input")
    assert fragment in str(error)


async def test_scores_and_compressions_are_persisted_for_admin(client: httpx.AsyncClient) -> None:
    await compress(
        client, messages=SEED_MESSAGES, task_context=TASK, target_count=8, conversation_id="conv-1"
    )
    page = body(
        await client.get("/admin/users/alice/conversations/conv-1/message-scores?limit=10"), 200
    )
    assert [s["message_index"] for s in page["items"]] == list(range(10))
    assert page["next_cursor"] == 9
    rest = body(
        await client.get("/admin/users/alice/conversations/conv-1/message-scores?after=9&limit=10"),
        200,
    )
    assert [s["message_index"] for s in rest["items"]] == list(range(10, 15))
    assert rest["next_cursor"] is None
    first = page["items"][0]
    assert first["method"] == "rule"
    assert first["role"] == "user"
    assert set(first["dimensions"]) >= {"relevance", "recency"}
    assert first["scored_at"] == "2026-01-01T09:00:00Z"
    history = body(await client.get("/admin/users/alice/conversations/conv-1/compressions"), 200)
    assert len(history) == 1
    assert history[0]["kept"] == SEED_KEPT
    assert (history[0]["from_count"], history[0]["to_count"]) == (15, 8)
    assert history[0]["target_count"] == 8

    # Re-scoring the grown conversation replaces rows by position; other conversations
    # stay empty.
    grown = [*SEED_MESSAGES, {"role": "user", "content": "再把README更新一下"}]
    await score(client, messages=grown, task_context=TASK, conversation_id="conv-1")
    all_rows = body(await client.get("/admin/users/alice/conversations/conv-1/message-scores"), 200)
    assert len(all_rows["items"]) == 16
    other = body(await client.get("/admin/users/alice/conversations/conv-2/message-scores"), 200)
    assert other["items"] == []


async def test_without_conversation_id_nothing_is_stored(client: httpx.AsyncClient) -> None:
    await score(client, messages=SEED_MESSAGES, task_context=TASK)
    stored = body(await client.get("/admin/users/alice/conversations/conv-x/message-scores"), 200)
    assert stored["items"] == []


PHASE_ONE, PHASE_TWO = "Phase 1: 重构认证", "Phase 2: 配置与测试"


def in_phases(split: int) -> list[Json]:
    return [
        {**m, "phase": PHASE_ONE if i < split else PHASE_TWO} for i, m in enumerate(SEED_MESSAGES)
    ]


async def test_an_earlier_phase_keeps_what_scores_8_and_a_summary(
    client: httpx.AsyncClient,
) -> None:
    # Seed 000 "Phase切换": the earlier phase's messages at or above 8.0 stay, the rest
    # become "[Phase … 总结]"; the current phase (the last message's) is compressed as usual.
    messages = in_phases(10)
    result = await compress(client, messages=messages, task_context=TASK, target_count=15)
    (phase,) = result["phases"]
    assert phase["phase"] == PHASE_ONE
    assert phase["kept"] == [0, 3, 5]  # the request, the decision, the edit
    assert phase["summarized"] == [1, 2, 4, 6, 7, 8, 9]
    assert phase["method"] == "extractive"
    assert result["kept"] == [0, 3, 5, 10, 11, 12, 13, 14]
    sent = result["messages"]
    summary = sent[3]
    assert summary["name"] == "phase_summary"
    assert summary["content"].startswith(f"[Phase {PHASE_ONE} 总结]\n- ")
    assert [m["content"] for m in sent[:3]] == [SEED_MESSAGES[i]["content"] for i in (0, 3, 5)]
    assert [m["content"] for m in sent[4:]] == [m["content"] for m in SEED_MESSAGES[10:]]
    # The phase in progress can be named: then phase 2 is the earlier one.
    named = await compress(
        client, messages=messages, task_context=TASK, target_count=15, current_phase=PHASE_ONE
    )
    assert [p["phase"] for p in named["phases"]] == [PHASE_TWO]
    # A tight target still keeps the summary, like a system message.
    tight = await compress(client, messages=messages, task_context=TASK, target_count=4)
    assert any(m.get("name") == "phase_summary" for m in tight["messages"])
    assert len(tight["messages"]) == 4


async def test_without_phases_nothing_changes(client: httpx.AsyncClient) -> None:
    result = await compress(client, messages=SEED_MESSAGES, task_context=TASK, target_count=8)
    assert result["phases"] == []
    assert result["kept"] == SEED_KEPT


async def test_a_conversation_over_a_million_characters_is_refused(
    client: httpx.AsyncClient,
) -> None:
    messages = [{"role": "user", "content": "x" * 100_000}] * 11
    response = await client.post("/v1/users/alice/messages/score", json={"messages": messages})
    assert response.status_code == 422
    assert "1000000 characters" in response.json()["error"]["message"]
