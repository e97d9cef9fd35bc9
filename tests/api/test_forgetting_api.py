"""Forgetting leaves no trace, and a person can be erased.

A canary is written, recalled, linked, used in a context and in message scoring, then
deleted (or edited away, or its person erased): afterwards no row of any table holds it
(every table of the database, every column as text, on SQLite and PostgreSQL), no log
line at any level carried it, and (tests/services/test_erasure_file.py) the SQLite
file's bytes do not hold it either.
"""

from __future__ import annotations

import hashlib
import logging
from typing import Any

import httpx
import pytest
from sqlalchemy import inspect, text

from services.core.db import Database
from services.text import normalize_content
from tests.api.conftest import AppFactory
from tests.api.helpers import Json, body, memories_url, remember

CANARY = "My secret PIN is ZQXJ7781 and I hate the dentist"
NEEDLE = "zqxj7781"  # the canary's token, as every derived row would hold it
USER = "canary-user"
CONVERSATION = "chat-1"


async def table_rows(db: Database) -> dict[str, list[str]]:
    """Every row of every table of the database (reflected, not only the models'), each
    as the lower-cased text of its values."""
    found: dict[str, list[str]] = {}
    async with db.reader() as session:
        connection = await session.connection()
        names = await connection.run_sync(lambda c: inspect(c).get_table_names())
        for name in names:
            rows = await session.execute(text(f'SELECT * FROM "{name}"'))
            found[name] = [" ".join(repr(v) for v in row).lower() for row in rows]
    return found


async def assert_nowhere(db: Database, needle: str = NEEDLE) -> None:
    holding = {
        name: [r for r in rows if needle in r]
        for name, rows in (await table_rows(db)).items()
        if any(needle in r for r in rows)
    }
    assert not holding, holding


async def exercise(client: httpx.AsyncClient, user: str = USER) -> Json:
    """Write the canary and use it every way the service can; the canary memory."""
    canary = await remember(client, user, CANARY, conversation_id=CONVERSATION)
    other = await remember(client, user, "I drink green tea every morning")
    await remember(client, user, "Dentist appointment next Tuesday at 9", memory_type="event")
    hits = body(await client.post(f"/v1/users/{user}/recall", json={"query": "my PIN"}), 200)
    assert NEEDLE in repr(hits).lower()
    link = f"{memories_url(user)}/{canary['id']}/links"
    body(await client.post(link, json={"target_id": other["id"]}), 201)
    messages = [
        {"role": "user", "content": CANARY},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "What is my PIN?"},
    ]
    context = await client.post(
        f"/v1/users/{user}/context",
        json={"messages": messages, "budget_tokens": 2000, "conversation_id": CONVERSATION},
    )
    assert NEEDLE in repr(body(context, 200)).lower()
    scored = await client.post(
        f"/v1/users/{user}/messages/score",
        json={"messages": messages, "conversation_id": CONVERSATION, "task_context": "PIN"},
    )
    body(scored, 200)
    compressed = await client.post(
        f"/v1/users/{user}/messages/compress",
        json={"messages": messages, "conversation_id": CONVERSATION, "target_count": 2},
    )
    body(compressed, 200)
    return canary


@pytest.fixture
def debug_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    return caplog


def assert_not_logged(caplog: pytest.LogCaptureFixture) -> None:
    assert caplog.records, "nothing was logged: the capture is not on"
    lines = [r.getMessage().lower() for r in caplog.records]
    assert not [line for line in lines if NEEDLE in line]


async def test_a_deleted_memory_leaves_no_trace(
    client: httpx.AsyncClient, db: Database, debug_logs: pytest.LogCaptureFixture
) -> None:
    canary = await exercise(client)
    assert any(NEEDLE in r for r in (await table_rows(db))["memory_term_stats"])
    resp = await client.delete(f"{memories_url(USER)}/{canary['id']}")
    assert resp.status_code == 204
    await assert_nowhere(db)
    assert_not_logged(debug_logs)
    # The person's other memories are untouched, and their statistics still count them.
    rows = await table_rows(db)
    assert any("green tea" in r for r in rows["user_memories"])
    assert any("'dentist'" in r for r in rows["memory_term_stats"])


async def test_an_edit_leaves_no_trace_of_the_old_text(
    client: httpx.AsyncClient, db: Database, debug_logs: pytest.LogCaptureFixture
) -> None:
    canary = await exercise(client)
    edited = await client.patch(
        f"{memories_url(USER)}/{canary['id']}", json={"content": "I changed my PIN"}
    )
    assert body(edited, 200)["content"] == "I changed my PIN"
    await assert_nowhere(db)
    assert_not_logged(debug_logs)


async def test_message_scores_keep_no_bare_hash_of_the_text(
    client: httpx.AsyncClient, db: Database
) -> None:
    messages = [{"role": "user", "content": "my PIN is 4821"}]
    payload = {"messages": messages, "conversation_id": "c", "task_context": "PIN"}
    body(await client.post(f"/v1/users/{USER}/messages/score", json=payload), 200)
    rows = (await table_rows(db))["message_scores"]
    assert len(rows) == 1
    bare = hashlib.sha256(normalize_content("my PIN is 4821").encode()).hexdigest()
    assert bare not in rows[0]
    assert hashlib.sha256(b"default\x1fPIN").hexdigest()[:32] not in rows[0]


async def erase(client: httpx.AsyncClient, user: str, status: int = 200) -> Any:
    return body(await client.delete(f"/v1/users/{user}"), status)


async def test_erasing_a_person_leaves_no_trace_and_reports_it(
    client: httpx.AsyncClient, db: Database, debug_logs: pytest.LogCaptureFixture
) -> None:
    await exercise(client)
    await remember(client, "someone-else", CANARY)  # another person's, untouched
    erased = await erase(client, USER)
    counts = erased["erased"]
    assert erased["user_id"] == USER
    assert counts["memories"] == 3
    assert counts["users"] == 1
    assert counts["conversations"] == 1
    assert counts["term_statistics"] > 0
    assert counts["postings"] > 0
    assert counts["links"] >= 1
    assert counts["score_history"] >= 3
    assert counts["message_scores"] >= 3
    assert counts["compressions"] >= 1
    assert erased["total"] == sum(v for k, v in counts.items() if k != "conversations")
    rows = await table_rows(db)
    mine = {name: [r for r in found if USER in r] for name, found in rows.items()}
    assert not any(mine.values()), mine
    assert [r for r in rows["user_memories"] if NEEDLE in r]  # someone-else's
    await erase(client, "someone-else")
    await assert_nowhere(db)
    assert_not_logged(debug_logs)
    users = body(await client.get("/admin/users"), 200)["items"]
    assert USER not in [u["user_id"] for u in users]


async def test_erasure_is_idempotent(client: httpx.AsyncClient) -> None:
    await remember(client, USER, CANARY)
    assert (await erase(client, USER))["total"] > 0
    again = await erase(client, USER)
    assert again["total"] == 0
    assert set(again["erased"].values()) == {0}
    never = await erase(client, "nobody-at-all")
    assert never["total"] == 0
    # The person may come back: a new start, nothing of the old one.
    back = await remember(client, USER, "I am new here")
    listed = body(await client.get(memories_url(USER)), 200)["items"]
    assert [m["id"] for m in listed] == [back["id"]]


async def test_a_recall_cached_before_the_erasure_is_not_served_after(
    client: httpx.AsyncClient,
) -> None:
    await remember(client, USER, CANARY)
    ask = {"messages": [{"role": "user", "content": "What is my PIN?"}], "budget_tokens": 2000}
    before = body(await client.post(f"/v1/users/{USER}/context", json=ask), 200)
    assert NEEDLE in repr(before).lower()
    await erase(client, USER)
    await remember(client, USER, "I like sailing")
    after = body(await client.post(f"/v1/users/{USER}/context", json=ask), 200)
    assert NEEDLE not in repr(after).lower()


async def test_erasure_removes_the_keys_bound_to_exactly_that_user(
    client: httpx.AsyncClient, db: Database
) -> None:
    from services.access.keys import ApiKeyService
    from services.core.clock import utcnow

    async with db.unit_of_work() as session:
        keys = ApiKeyService(session, utcnow)
        await keys.create("theirs", f"prefix:{USER}")
        await keys.create("a tenant's", "prefix:canary-")
    await remember(client, USER, CANARY)
    assert (await erase(client, USER))["erased"]["api_keys"] == 1
    names = list((await table_rows(db))["api_keys"])
    assert len(names) == 1
    assert "a tenant's" in names[0]


async def test_a_prefix_key_erases_only_its_own_users(app_with: AppFactory, db: Database) -> None:
    from services.access.keys import ApiKeyService
    from services.core.clock import utcnow

    async with db.unit_of_work() as session:
        created = await ApiKeyService(session, utcnow).create("tenant", "prefix:acme:")
    http = await app_with(jarvis_auth_required=True)
    http.headers["Authorization"] = f"Bearer {created.secret}"
    await remember(http, "acme:ann", CANARY)
    await remember(http, "globex:bob", CANARY, status=403)
    refused = await http.delete("/v1/users/globex:bob")
    assert refused.status_code == 403
    assert (await erase(http, "acme:ann"))["erased"]["memories"] == 1
