"""clients/python (jarvis-memory-client) against the real server on loopback, both
databases: every /v1 and /admin route, sync and async, and the typed errors."""

from __future__ import annotations

import pytest

from jarvis_memory_client import (
    AsyncJarvisMemory,
    AuthenticationError,
    ConflictError,
    InvalidInputError,
    JarvisMemory,
    NotFoundError,
    PermissionDeniedError,
)
from jarvis_memory_client.types import ChatMessage
from tests.live_server import LiveServer

CHAT: list[ChatMessage] = [
    {"role": "system", "content": "You are Jarvis."},
    {"role": "user", "content": "My sister Ann lives in Lisbon."},
    {"role": "assistant", "content": "Noted."},
    {"role": "user", "content": "Where does Ann live?"},
]


def test_every_v1_route_sync(live: LiveServer) -> None:
    user = "client-sync"
    with JarvisMemory(live.url, api_key=live.service_key) as memory:
        assert memory.healthz() == {"status": "ok"}
        assert memory.readyz()["status"] == "ready"

        ann = memory.remember(user, "My sister Ann lives in Lisbon", memory_type="fact")
        assert ann["merged"] is False
        assert memory.remember(user, "My sister Ann lives in Lisbon")["merged"] is True
        # The assistant's echo is its own memory (another user keeps this one's listing).
        said = memory.remember(f"{user}-roles", "My sister Ann lives in Lisbon")
        echo = memory.remember(f"{user}-roles", "My sister Ann lives in Lisbon", role="assistant")
        assert (echo["merged"], echo["role"], said["role"]) == (False, "assistant", "user")
        batch = memory.remember_many(
            user,
            [
                {"content": "I play the guitar on Sundays", "memory_type": "preference"},
                {"content": "Finish the quarterly report", "memory_type": "todo"},
            ],
        )
        assert (batch["created"], batch["merged"]) == (2, 0)
        guitar, report = (m["id"] for m in batch["items"])

        assert memory.get_memory(user, ann["id"])["mention_count"] == 2
        page = memory.list_memories(user, order="recent", limit=2)
        assert [m["id"] for m in page["items"]] == [report, guitar]
        assert page["next_cursor"] is not None
        rest = memory.list_memories(user, order="recent", limit=2, cursor=page["next_cursor"])
        assert [m["id"] for m in rest["items"]] == [ann["id"]]
        every = [m["id"] for m in memory.iter_memories(user, order="recent", page_size=1)]
        assert every == [report, guitar, ann["id"]]
        todos = memory.list_memories(user, types=["todo", "fact"])
        assert {m["id"] for m in todos["items"]} == {ann["id"], report}

        edited = memory.update_memory(user, guitar, content="I play the piano on Sundays")
        assert edited["content"] == "I play the piano on Sundays"
        link = memory.link(user, guitar, report, weight=2.0)
        assert (link["kind"], link["weight"]) == ("explicit", 2.0)
        assert len(memory.links(user, report)) == 1

        hits = memory.recall(user, "Where does Ann live?", top_k=2, explain=True)["results"]
        assert hits[0]["memory"]["id"] == ann["id"]
        assert hits[0]["explanation"] is not None
        untracked = memory.recall(user, "Lisbon", track=False, types=["fact"])
        assert [h["memory"]["id"] for h in untracked["results"]] == [ann["id"]]
        assert untracked["results"][0]["confidence"] is not None
        assert untracked["results"][0]["counted"] is False
        assert untracked["sufficient"] is False  # one result is never enough
        used = memory.used(user, [ann["id"], ann["id"]])
        assert used["counted"] == [ann["id"]]
        with pytest.raises(NotFoundError):
            memory.used(user, [ann["id"], 9_000_000_001])

        moved = memory.remember(user, "Ann moved to Porto", memory_type="fact")
        assert memory.supersede(user, ann["id"], moved["id"])["superseded_by_id"] == moved["id"]
        assert memory.restore(user, ann["id"])["superseded_by_id"] is None

        assert memory.escalations(user, include_acknowledged=True) == []
        with pytest.raises(InvalidInputError):
            memory.acknowledge(user, ann["id"])  # not escalated

        assembled = memory.context(user, CHAT, 400, conversation_id="conv-1")
        assert ann["id"] in [m["id"] for m in assembled["memories"]]
        scored = memory.score_messages(user, CHAT, conversation_id="conv-1")
        assert len(scored["scores"]) == len(CHAT)
        compressed = memory.compress_messages(user, CHAT, target_count=3, conversation_id="conv-1")
        assert compressed["messages"][0]["role"] == "system"

        memory.forget(user, report)
        with pytest.raises(NotFoundError) as missing:
            memory.get_memory(user, report)
        assert missing.value.code == "memory_not_found"


def test_every_admin_route(live: LiveServer) -> None:
    user = "client-admin"
    with JarvisMemory(live.url, api_key=live.admin_key) as admin:
        stored = admin.remember(user, "I am allergic to peanuts", memory_type="constraint")
        admin.score_messages(user, CHAT, conversation_id="conv-admin")
        admin.compress_messages(user, CHAT, target_count=3, conversation_id="conv-admin")

        users = admin.admin_users(limit=500)
        assert user in [u["user_id"] for u in users["items"]]
        listed = admin.admin_user_memories(user, order="importance", limit=5)
        assert [m["id"] for m in listed["items"]] == [stored["id"]]
        seen = admin.admin_memory(stored["id"])
        assert set(seen["contributions"]) == {"frequency", "recency", "emotion", "impact"}
        assert seen["history"]
        run = admin.admin_rescore(user)
        assert (run["status"], run["user_id"]) == ("succeeded", user)
        assert run["id"] in [j["id"] for j in admin.admin_jobs(limit=10)]
        assert admin.admin_stats()["memories"] >= 1
        scores = admin.admin_message_scores(user, "conv-admin", limit=2)
        assert [s["message_index"] for s in scores["items"]] == [0, 1]
        assert scores["next_cursor"] == 1
        assert len(admin.admin_compressions(user, "conv-admin", limit=5)) == 1


def test_errors_are_typed_from_the_error_json(live: LiveServer) -> None:
    with JarvisMemory(live.url, api_key=live.service_key) as memory:
        with pytest.raises(PermissionDeniedError) as denied:
            memory.admin_stats()
        assert denied.value.status == 403
        with pytest.raises(InvalidInputError) as invalid:
            memory.remember("client-errors", "")
        assert invalid.value.code == "invalid_input"
        assert invalid.value.details[0]["loc"] == ["body", "content"]
        first = memory.remember("client-errors", "A fact to restore")
        with pytest.raises(ConflictError) as conflict:
            memory.restore("client-errors", first["id"])
        assert conflict.value.code == "not_superseded"
    stranger = JarvisMemory(live.url, api_key="not-a-key")
    with stranger, pytest.raises(AuthenticationError):
        stranger.list_memories("client-errors")


async def test_the_async_client(live: LiveServer) -> None:
    user = "client-async"
    async with AsyncJarvisMemory(live.url, api_key=live.service_key) as memory:
        stored = await memory.remember(user, "The dentist is on Friday", memory_type="event")
        hits = await memory.recall(user, "dentist")
        assert [h["memory"]["id"] for h in hits["results"]] == [stored["id"]]
        page = await memory.list_memories(user)
        assert [m["id"] for m in page["items"]] == [stored["id"]]
        again = await memory.remember(user, "The plumber comes on Monday", memory_type="event")
        every = [m["id"] async for m in memory.iter_memories(user, order="recent", page_size=1)]
        assert every == [again["id"], stored["id"]]
        await memory.forget(user, stored["id"])
        with pytest.raises(NotFoundError):
            await memory.get_memory(user, stored["id"])
