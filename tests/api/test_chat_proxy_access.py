"""Whose memory the chat proxy reads and writes: the person named, never another, and only
a person the caller's key reaches."""

from __future__ import annotations

from typing import Any

from services.access.keys import ApiKeyService
from services.core.db import Database
from tests.api.conftest import ProxyFactory
from tests.api.helpers import assert_error
from tests.chat_upstream import ChatUpstream
from tests.conftest import FakeClock

ADA, BEA = "acme:ada", "acme:bea"


def chat(text: str, **fields: Any) -> dict[str, Any]:
    return {"model": "gpt-test", "messages": [{"role": "user", "content": text}], **fields}


def received_text(chat_upstream: ChatUpstream) -> str:
    """Every message text the model server received last."""
    return " ".join(str(m.get("content")) for m in chat_upstream.chats()[-1].body["messages"])


async def test_two_persons_never_see_each_others_memories(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream
) -> None:
    async with served_proxy() as served:
        url = "/v1/chat/completions"
        await served.http.post(url, json=chat("I keep bees on my roof", user=ADA))
        await served.http.post(url, json=chat("I collect old maps of Lisbon", user=BEA))
        await served.http.post(url, json=chat("What do I keep on my roof? bees?", user=BEA))
        assert "roof" not in received_text(chat_upstream).replace("my roof? bees?", "")
        await served.http.post(url, json=chat("Which maps do I collect?", user=ADA))
        assert "Lisbon" not in received_text(chat_upstream)
        await served.http.post(url, json=chat("Which maps do I collect?", user=BEA))
        assert "Lisbon" in received_text(chat_upstream)
        assert [m["content"] for m in await served.memories(ADA)] == [
            "Which maps do I collect?",
            "I keep bees on my roof",
        ]


async def test_a_scoped_key_cannot_name_another_prefixs_person(
    served_proxy: ProxyFactory, chat_upstream: ChatUpstream, db: Database, clock: FakeClock
) -> None:
    async with db.unit_of_work() as session:
        created = await ApiKeyService(session, clock).create("acme", "prefix:acme:")
    async with served_proxy() as served:
        headers = {"Authorization": f"Bearer {created.secret}"}
        url = "/v1/chat/completions"
        for body, extra in [
            (chat("Hi", user="globex:cy"), {}),
            (chat("Hi"), {"X-Jarvis-User": "globex:cy"}),
            (chat("Hi"), {"X-OpenWebUI-User-Id": "globex:cy"}),
            (chat("Hi", user=ADA), {"X-Jarvis-User": "globex:cy"}),
            (chat("Hi", user="globex:cy"), {"X-Jarvis-Memory": "off"}),
        ]:
            resp = await served.http.post(url, json=body, headers={**headers, **extra})
            assert_error(resp, 403, "forbidden")
        assert chat_upstream.chats() == []
        allowed = await served.http.post(url, json=chat("Hi", user=ADA), headers=headers)
        assert allowed.status_code == 200
        assert_error(
            await served.http.post(
                url, json=chat("Hi", user=ADA), headers={"Authorization": "Bearer nope"}
            ),
            401,
            "unauthorized",
        )
