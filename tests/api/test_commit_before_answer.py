"""A write is committed before its answer leaves, on both databases.

The app is wrapped in an ASGI middleware that, at the moment the app sends the response's
first message (``http.response.start``), reads the database through a separate engine:
what a client that acts on the answer at once (a recall straight after an add) would
find. With the unit of work's COMMIT after the response (FastAPI's default scope for a
yield dependency) these reads see nothing of the write; the tests fail that way if an
upgrade brings that order back. A commit forced to fail by the database itself (a
deferred constraint checked at COMMIT) must become the response, with nothing written.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine
from starlette.types import Message, Receive, Scope, Send

from api.app import create_app
from services.core.db import Database
from services.core.settings import Settings
from tests.api.helpers import Json, body
from tests.conftest import FakeClock
from tests.timing import lifespan

Snapshot = dict[str, Any]

USER_TABLES = (
    "memory_score_history",
    "memory_embeddings",
    "memory_associations",
    "memory_topics",
    "memory_terms",
    "memory_term_stats",
    "user_memories",
    "memory_users",
)


@dataclass
class AnswerWitness:
    """ASGI middleware: reads the database the instant the app starts its answer."""

    app: FastAPI
    look: Callable[[], Awaitable[Snapshot]]
    seen: list[tuple[int, Snapshot]] = field(default_factory=list)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def send_after_looking(message: Message) -> None:
            if message["type"] == "http.response.start":
                self.seen.append((message["status"], await self.look()))
            await send(message)

        await self.app(scope, receive, send_after_looking)

    def last(self) -> Snapshot:
        """What the database held when the last answer started."""
        assert self.seen, "no answer was sent"
        return self.seen[-1][1]


async def _rows(engine: AsyncEngine, sql: str, **params: Any) -> list[tuple[Any, ...]]:
    # A plain engine: a new connection per look, outside any of the app's transactions.
    async with engine.connect() as connection:
        return [tuple(r) for r in (await connection.execute(text(sql), params)).all()]


async def snapshot(engine: AsyncEngine, user: str, conversation: str) -> Snapshot:
    """Everything of ``user`` and ``conversation`` another connection can see."""
    return {
        "memories": await _rows(
            engine,
            "SELECT id, content, mention_count, recall_count, superseded_by_id"
            " FROM user_memories WHERE user_id = :u ORDER BY id",
            u=user,
        ),
        "links": await _rows(
            engine,
            "SELECT memory_id_a, memory_id_b, kind FROM memory_associations"
            " WHERE user_id = :u ORDER BY memory_id_a, memory_id_b",
            u=user,
        ),
        "message_scores": await _rows(
            engine,
            "SELECT message_index FROM message_scores WHERE conversation_id = :c"
            " ORDER BY message_index",
            c=conversation,
        ),
        "compressions": await _rows(
            engine, "SELECT id FROM message_compressions WHERE conversation_id = :c", c=conversation
        ),
    }


@dataclass
class Served:
    """The real app over HTTP (ASGI) on the real engine, with its witness."""

    http: httpx.AsyncClient
    witness: AnswerWitness
    observer: AsyncEngine
    user: str
    conversation: str

    async def now(self) -> Snapshot:
        """What another connection sees after the answer (and anything after it)."""
        return await snapshot(self.observer, self.user, self.conversation)

    def memory_ids(self) -> list[int]:
        """Ids of the user's memories visible when the last answer started."""
        return [row[0] for row in self.witness.last()["memories"]]


async def _clean(engine: AsyncEngine, user: str, conversation: str) -> None:
    async with engine.begin() as connection:
        for table in USER_TABLES:
            await connection.execute(
                text(f"DELETE FROM {table} WHERE user_id = :u"),
                {"u": user},
            )
        for table in ("message_scores", "message_compressions"):
            await connection.execute(
                text(f"DELETE FROM {table} WHERE conversation_id = :c"),
                {"c": conversation},
            )


@pytest.fixture
async def observer(database_url: str) -> AsyncIterator[AsyncEngine]:
    """A second engine on the test database, without the service's connection hooks: on
    SQLite it reads the committed WAL snapshot and takes no write lock."""
    built = create_async_engine(database_url)
    yield built
    await built.dispose()


@pytest.fixture
async def served(
    engine: AsyncEngine, observer: AsyncEngine, settings: Settings, clock: FakeClock
) -> AsyncIterator[Served]:
    user = f"ack-{uuid.uuid4().hex[:10]}"
    conversation = f"conv-{uuid.uuid4().hex[:10]}"
    app = create_app(settings, db=Database(engine), clock=clock)

    async def look() -> Snapshot:
        return await snapshot(observer, user, conversation)

    witness = AnswerWitness(app, look)
    # A failed commit re-raises after its 500 is sent (Starlette): answer, don't raise here.
    transport = httpx.ASGITransport(app=witness, raise_app_exceptions=False)
    try:
        async with (
            lifespan(app),
            httpx.AsyncClient(transport=transport, base_url="http://t") as http,
        ):
            yield Served(http, witness, observer, user, conversation)
    finally:
        await _clean(engine, user, conversation)


def _memories(served: Served) -> str:
    return f"/v1/users/{served.user}/memories"


async def _add(served: Served, content: str, **fields: Any) -> Json:
    stored: Json = body(
        await served.http.post(_memories(served), json={"content": content, **fields}), 201
    )
    return stored


async def test_an_acknowledged_add_is_visible_at_once(served: Served) -> None:
    stored = await _add(served, "my sister Ann lives in Lisbon")
    assert served.memory_ids() == [stored["id"]]
    # A repeat merges: the new mention is committed before the 200 leaves, too.
    repeat = {"content": "My sister Ann lives in Lisbon"}
    merged = body(await served.http.post(_memories(served), json=repeat), 200)
    assert merged["merged"] is True
    assert served.witness.last()["memories"][0][2] == 2


async def test_an_acknowledged_batch_is_visible_at_once(served: Served) -> None:
    items = [{"content": f"batch statement number {i} about topic {i % 7}"} for i in range(200)]
    out = body(await served.http.post(f"{_memories(served)}/batch", json={"items": items}), 200)
    assert out["created"] == 200
    assert served.memory_ids() == sorted(item["id"] for item in out["items"])


async def test_an_acknowledged_edit_delete_and_link_are_visible_at_once(served: Served) -> None:
    first = await _add(served, "the spare key is in the shed")
    second = await _add(served, "the shed is behind the garage")

    edited = body(
        await served.http.patch(
            f"{_memories(served)}/{first['id']}", json={"content": "the spare key is in the car"}
        ),
        200,
    )
    assert edited["content"] == "the spare key is in the car"
    contents = {row[0]: row[1] for row in served.witness.last()["memories"]}
    assert contents[first["id"]] == "the spare key is in the car"

    linked = await served.http.post(
        f"{_memories(served)}/{first['id']}/links", json={"target_id": second["id"]}
    )
    body(linked, 201)
    explicit = [row for row in served.witness.last()["links"] if row[2] == "explicit"]
    assert len(explicit) == 1

    deleted = await served.http.delete(f"{_memories(served)}/{second['id']}")
    assert deleted.status_code == 204
    assert served.memory_ids() == [first["id"]]
    assert served.witness.last()["links"] == []


async def test_an_acknowledged_supersede_and_restore_are_visible_at_once(served: Served) -> None:
    old = await _add(served, "my favourite tea is green tea")
    new = await _add(served, "these days I drink black coffee in the morning")
    superseded = await served.http.post(
        f"{_memories(served)}/{old['id']}/supersede", json={"by": new["id"]}
    )
    body(superseded, 200)
    rows = {row[0]: row for row in served.witness.last()["memories"]}
    assert rows[old["id"]][4] == new["id"]

    body(await served.http.post(f"{_memories(served)}/{old['id']}/restore"), 200)
    rows = {row[0]: row for row in served.witness.last()["memories"]}
    assert rows[old["id"]][4] is None


async def test_an_acknowledged_recall_has_counted_its_hits(served: Served) -> None:
    stored = await _add(served, "the dentist appointment is on Friday")
    found = body(
        await served.http.post(
            f"/v1/users/{served.user}/recall", json={"query": "dentist appointment"}
        ),
        200,
    )
    assert [r["memory"]["id"] for r in found["results"]] == [stored["id"]]
    assert served.witness.last()["memories"][0][3] == 1  # recall_count


def _long_conversation(turns: int = 40) -> list[Json]:
    out: list[Json] = [{"role": "system", "content": "You are Jarvis. 回答简洁。"}]
    for i in range(turns):
        out.append(
            {"role": "user", "content": f"第{i}步：我们决定用 Redis 做缓存。必须兼容 Python 3.11。"}
        )
        out.append({"role": "assistant", "content": f"Step {i}: I updated config/cache.yaml."})
    out.append({"role": "user", "content": "缓存用的是什么？"})
    return out


async def test_an_acknowledged_context_call_has_saved_its_cards(served: Served) -> None:
    out = body(
        await served.http.post(
            f"/v1/users/{served.user}/context",
            json={
                "messages": _long_conversation(),
                "budget_tokens": 1500,
                "conversation_id": served.conversation,
                "extract_cards": True,
            },
        ),
        200,
    )
    assert out["cards"]
    assert set(served.memory_ids()) == {card["memory_id"] for card in out["cards"]}


async def test_acknowledged_message_scores_and_compressions_are_visible_at_once(
    served: Served,
) -> None:
    messages = [
        {"role": "user", "content": "Please switch the cache to Redis"},
        {"role": "assistant", "content": "Done: I edited config/cache.yaml"},
        {"role": "user", "content": "thanks"},
    ]
    payload = {"messages": messages, "conversation_id": served.conversation}
    body(await served.http.post("/v1/users/alice/messages/score", json=payload), 200)
    assert [r[0] for r in served.witness.last()["message_scores"]] == [0, 1, 2]
    body(
        await served.http.post(
            "/v1/users/alice/messages/compress", json={**payload, "target_count": 2}
        ),
        200,
    )
    assert len(served.witness.last()["compressions"]) == 1


# A commit the database itself refuses. SQLite checks a DEFERRABLE INITIALLY DEFERRED
# foreign key at COMMIT; PostgreSQL runs an INITIALLY DEFERRED constraint trigger there.
# Both fire only for one poisoned statement, inserted by a trigger on user_memories.
POISON = "this statement cannot be committed"

_SQLITE_POISON = [
    "CREATE TABLE commit_poison_parent (id INTEGER PRIMARY KEY)",
    "CREATE TABLE commit_poison (parent INTEGER REFERENCES commit_poison_parent (id)"
    " DEFERRABLE INITIALLY DEFERRED)",
    "CREATE TRIGGER commit_poison_on_insert AFTER INSERT ON user_memories"
    f" WHEN NEW.content = '{POISON}' BEGIN INSERT INTO commit_poison VALUES (42); END",
]
_SQLITE_CURE = [
    "DROP TRIGGER IF EXISTS commit_poison_on_insert",
    "DROP TABLE IF EXISTS commit_poison",
    "DROP TABLE IF EXISTS commit_poison_parent",
]


def _postgres_poison(sqlstate: str) -> list[str]:
    return [
        "CREATE FUNCTION commit_poison() RETURNS trigger LANGUAGE plpgsql AS $$"
        f" BEGIN IF NEW.content = '{POISON}' THEN"
        f" RAISE EXCEPTION 'refused at commit' USING ERRCODE = '{sqlstate}'; END IF;"
        " RETURN NULL; END $$",
        "CREATE CONSTRAINT TRIGGER commit_poison_on_insert AFTER INSERT ON user_memories"
        " DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION commit_poison()",
    ]


_POSTGRES_CURE = [
    "DROP TRIGGER IF EXISTS commit_poison_on_insert ON user_memories",
    "DROP FUNCTION IF EXISTS commit_poison()",
]


@pytest.fixture
async def poisoned(engine: AsyncEngine) -> AsyncIterator[Callable[[str], Awaitable[None]]]:
    """Install the poison (a SQLSTATE to raise, on PostgreSQL); removed afterwards."""
    postgres = engine.dialect.name == "postgresql"

    async def install(sqlstate: str) -> None:
        statements = _postgres_poison(sqlstate) if postgres else _SQLITE_POISON
        async with engine.begin() as connection:
            for statement in statements:
                await connection.execute(text(statement))

    yield install
    async with engine.begin() as connection:
        for statement in _POSTGRES_CURE if postgres else _SQLITE_CURE:
            await connection.execute(text(statement))


async def test_a_commit_that_fails_is_the_answer_and_writes_nothing(
    served: Served, poisoned: Callable[[str], Awaitable[None]]
) -> None:
    await poisoned("23514")  # PostgreSQL: check_violation, no contention
    kept = await _add(served, "a statement committed before the poison")
    refused = await served.http.post(
        f"{_memories(served)}/batch",
        json={"items": [{"content": "an innocent neighbour in the batch"}, {"content": POISON}]},
    )
    assert refused.status_code == 500
    assert refused.json()["error"]["code"] == "internal_error"
    single = await served.http.post(_memories(served), json={"content": POISON})
    assert single.status_code == 500
    after = await served.now()
    assert [row[0] for row in after["memories"]] == [kept["id"]]


async def test_a_commit_that_loses_to_another_transaction_is_503(
    served: Served, poisoned: Callable[[str], Awaitable[None]], engine: AsyncEngine
) -> None:
    if engine.dialect.name != "postgresql":
        pytest.skip("SQLite takes its write lock at BEGIN IMMEDIATE: nothing waits at COMMIT")
    await poisoned("40001")  # serialization_failure: the transaction lost, a retry may pass
    refused = await served.http.post(_memories(served), json={"content": POISON})
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "1"
    assert refused.json()["error"]["code"] == "database_busy"
    assert (await served.now())["memories"] == []
