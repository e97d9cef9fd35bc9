"""Two users with the same conversation id never see or overwrite each other's message
scores or compression history, and the old global routes are gone."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

from services.core.db import Database
from services.repositories.message_scores import MessageScoreRepository
from tests.api.helpers import Json, assert_error, body
from tests.conftest import FakeClock

CONVERSATION = "shared-id"
ALICE_MESSAGES = [
    {"role": "user", "content": "请帮我把支付模块重构成三个服务，必须保留幂等键"},
    {"role": "assistant", "content": "好的，我先列出现有的接口"},
    {"role": "user", "content": "Decision: we keep PostgreSQL and drop the Redis queue"},
]
BOB_MESSAGES = [{"role": "user", "content": "thanks, bye"}]


def scores_url(user: str) -> str:
    return f"/admin/users/{user}/conversations/{CONVERSATION}/message-scores"


def history_url(user: str) -> str:
    return f"/admin/users/{user}/conversations/{CONVERSATION}/compressions"


async def score(client: httpx.AsyncClient, user: str, messages: list[Json]) -> None:
    payload = {"messages": messages, "conversation_id": CONVERSATION}
    body(await client.post(f"/v1/users/{user}/messages/score", json=payload), 200)


async def compress(client: httpx.AsyncClient, user: str, messages: list[Json]) -> None:
    payload = {"messages": messages, "conversation_id": CONVERSATION, "target_count": 1}
    body(await client.post(f"/v1/users/{user}/messages/compress", json=payload), 200)


async def stored(client: httpx.AsyncClient, user: str) -> list[Json]:
    items: list[Json] = body(await client.get(scores_url(user)), 200)["items"]
    return items


async def test_the_same_conversation_id_is_two_conversations(client: httpx.AsyncClient) -> None:
    await score(client, "alice", ALICE_MESSAGES)
    await compress(client, "alice", ALICE_MESSAGES)
    alice_before = await stored(client, "alice")
    alice_history = body(await client.get(history_url("alice")), 200)
    assert [row["message_index"] for row in alice_before] == [0, 1, 2]
    assert len(alice_history) == 1

    # Bob scores and compresses under the same id: message 0 is his, not a row of Alice's.
    await score(client, "bob", BOB_MESSAGES)
    await compress(client, "bob", BOB_MESSAGES)

    assert await stored(client, "alice") == alice_before
    assert body(await client.get(history_url("alice")), 200) == alice_history
    bob = await stored(client, "bob")
    assert [(row["message_index"], row["role"]) for row in bob] == [(0, "user")]
    assert bob[0]["content_hash"] != alice_before[0]["content_hash"]
    bob_history = body(await client.get(history_url("bob")), 200)
    assert [(h["from_count"], h["to_count"]) for h in bob_history] == [(1, 1)]
    # A third user sees nothing under the id.
    assert await stored(client, "carol") == []
    assert body(await client.get(history_url("carol")), 200) == []


async def test_the_global_routes_answer_410_with_their_successor(
    client: httpx.AsyncClient,
) -> None:
    payload = {"messages": BOB_MESSAGES, "conversation_id": CONVERSATION, "target_count": 1}
    for resp, successor in (
        (await client.post("/v1/messages/score", json=payload), "/messages/score"),
        (await client.post("/v1/messages/compress", json=payload), "/messages/compress"),
        (await client.get(f"/admin/conversations/{CONVERSATION}/message-scores"), "scores"),
        (await client.get(f"/admin/conversations/{CONVERSATION}/compressions"), "compressions"),
    ):
        error = assert_error(resp, 410, "gone")
        assert "/users/{user_id}/" in error["message"]
        assert successor in error["message"]
    # Nothing was stored by the refused calls.
    assert await stored(client, "alice") == []


def _row(user_id: str, total: float, now: datetime) -> dict[str, Any]:
    return {
        "user_id": user_id,
        "conversation_id": CONVERSATION,
        "message_index": 0,
        "role": "user",
        "content_hash": "same-content",
        "task_hash": "same-task",
        "task_type": "default",
        "total": total,
        "dimensions": {},
        "confidence": 0.5,
        "method": "rule",
        "scored_at": now,
    }


async def test_the_background_refinement_writes_only_its_users_score(
    db: Database, clock: FakeClock
) -> None:
    """The LLM's later answer (services/context/importance/background_scorer.py) for Alice's message
    leaves Bob's score of the same id, index, content and task alone."""
    now = clock()
    async with db.unit_of_work() as session:
        await MessageScoreRepository(session).upsert(
            [_row("alice", 3.0, now), _row("bob", 4.0, now)]
        )
    refined = {
        "message_index": 0,
        "content_hash": "same-content",
        "task_hash": "same-task",
        "total": 9.0,
        "method": "llm",
        "reason": "a decision",
        "llm_score": 9.0,
        "scored_at": now,
    }
    async with db.unit_of_work() as session:
        await MessageScoreRepository(session).refine("alice", CONVERSATION, [refined])
    async with db.unit_of_work() as session:
        repo = MessageScoreRepository(session)
        alice, bob = (
            await repo.scores("alice", CONVERSATION),
            await repo.scores("bob", CONVERSATION),
        )
    assert [(r.total, r.method) for r in alice] == [(9.0, "llm")]
    assert [(r.total, r.method) for r in bob] == [(4.0, "rule")]
