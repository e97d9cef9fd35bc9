"""Seed 000's async_score_and_compress: rule scores in the answer, the LLM's after it, used
by the next request; bounded, shut down by the lifespan, drained instead of slept on. On
SQLite and PostgreSQL, against the real loopback LLM."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from fastapi import FastAPI

from api.app import create_app
from services.context.importance.background_scorer import (
    BackgroundScorer,
    ScoringJob,
    submit_after_commit,
)
from services.context.importance.message_scorer import build_message_scorer
from services.context.importance.service import Conversation, MessageScoringService
from services.context.shared.messages import ChatMessage
from services.core.db import Database
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer
from tests.api.helpers import Json, body
from tests.conftest import FakeClock
from tests.services.context.llm_server import FakeLlm, serve

MESSAGES = [
    {"role": "tool", "content": "edit_file(app/main.py) → added retry logic"},
    {"role": "assistant", "content": "The weather looked odd in the logs, worth a look later"},
    {"role": "user", "content": "thanks!"},
    {"role": "assistant", "content": "Interesting, the numbers moved around a bit overnight"},
]
UNCERTAIN = [1, 3]
TASK = "retry logic for the API client"


@pytest.fixture
def llm() -> Iterator[FakeLlm]:
    with serve(FakeLlm()) as server:
        yield server


@pytest.fixture
async def apps(
    db: Database, settings: Settings, clock: FakeClock, llm: FakeLlm
) -> AsyncIterator[Any]:
    """Apps (processes) with the loopback LLM on the test's database: (app, client)."""
    opened: list[tuple[LifespanManager, httpx.AsyncClient]] = []

    async def make(**changes: Any) -> tuple[FastAPI, httpx.AsyncClient]:
        configured = settings.model_copy(update={"llm_base_url": llm.base_url, **changes})
        app = create_app(configured, db=db, clock=clock)
        manager = LifespanManager(app, startup_timeout=None)
        await manager.__aenter__()
        http = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://t")
        opened.append((manager, http))
        return app, http

    yield make
    for manager, http in reversed(opened):
        await http.aclose()
        await manager.__aexit__(None, None, None)


def background(app: FastAPI) -> BackgroundScorer:
    worker: BackgroundScorer = app.state.jarvis.background
    return worker


async def score(http: httpx.AsyncClient, **fields: Any) -> Json:
    payload = {"messages": MESSAGES, "task_context": TASK, **fields}
    result: Json = body(await http.post("/v1/users/alice/messages/score", json=payload), 200)
    return result


async def test_rule_scores_now_and_the_llms_for_the_next_request(apps: Any, llm: FakeLlm) -> None:
    app, http = await apps()
    first = await score(http, conversation_id="conv-bg", background=True)
    assert [s["method"] for s in first["scores"]] == ["rule"] * 4
    assert [s["index"] for s in first["scores"] if s["pending"]] == UNCERTAIN
    await background(app).drain()
    assert len(llm.requests) == 1
    assert llm.asked_indexes() == UNCERTAIN
    # The LLM's part was written into the persisted scores, after the answer.
    stored = body(await http.get("/admin/users/alice/conversations/conv-bg/message-scores"), 200)[
        "items"
    ]
    assert [r["method"] for r in stored] == ["rule", "llm", "rule", "llm"]
    assert [r["llm_score"] for r in stored] == [None, 9.0, None, 9.0]
    refined = {r["message_index"]: r["score"] for r in stored}
    assert refined[1] > first["scores"][1]["score"]  # 0.3 · rule + 0.7 · 9
    # The next compression uses them without asking again (seed: 下次压缩时使用缓存的评分).
    compress = {"messages": MESSAGES, "task_context": TASK, "conversation_id": "conv-bg"}
    compressed = body(
        await http.post("/v1/users/alice/messages/compress", json={**compress, "target_count": 3}),
        200,
    )
    assert compressed["pending"] == []
    assert len(llm.requests) == 1
    # Another process reads them from the database.
    _, other = await apps()
    again = await score(other, conversation_id="conv-bg", background=True)
    assert [s["method"] for s in again["scores"]] == ["rule", "cache", "rule", "cache"]
    assert not any(s["pending"] for s in again["scores"])
    assert len(llm.requests) == 1


async def test_the_default_waits_for_the_llm(apps: Any, llm: FakeLlm) -> None:
    _, http = await apps()
    out = await score(http)
    assert [s["method"] for s in out["scores"]] == ["rule", "llm", "rule", "llm"]
    # MESSAGE_SCORE_BACKGROUND turns it on for every request that does not say.
    app, eager = await apps(message_score_background=True)
    later = await score(eager, task_context="another task")
    assert [s["index"] for s in later["scores"] if s["pending"]] == UNCERTAIN
    await background(app).drain()
    assert len(llm.requests) == 2


async def test_context_assembly_scores_in_the_background_too(apps: Any, llm: FakeLlm) -> None:
    app, http = await apps(message_score_background=True)
    payload = {
        "messages": [*MESSAGES, {"role": "user", "content": "so what changed?"}],
        "task_context": TASK,
        "budget_tokens": 4000,
    }
    body(await http.post("/v1/users/alice/context", json=payload), 200)
    await background(app).drain()
    asked = len(llm.requests)
    assert asked == 1
    body(await http.post("/v1/users/alice/context", json=payload), 200)
    await background(app).drain()
    assert len(llm.requests) == asked  # the answers were cached for the next assembly


def job(
    analyzer: TextAnalyzer, llm: FakeLlm, capacity: int, db: Database, clock: FakeClock
) -> tuple[BackgroundScorer, ScoringJob]:
    settings = Settings(_env_file=None, llm_base_url=llm.base_url)
    scorer = build_message_scorer(analyzer, settings)
    worker = BackgroundScorer(scorer, db, clock, capacity)
    messages = tuple(ChatMessage(m["role"], m["content"]) for m in MESSAGES)
    return worker, ScoringJob(messages, scorer.task(TASK), tuple(UNCERTAIN))


async def test_the_queue_is_bounded_and_drops_are_logged(
    analyzer: TextAnalyzer,
    llm: FakeLlm,
    db: Database,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    worker, work = job(analyzer, llm, 1, db, clock)
    worker.start()
    with caplog.at_level(logging.WARNING, logger="services.context.importance.background_scorer"):
        assert worker.submit(work)
        assert not worker.accepting
        assert not worker.submit(work)  # nothing ran in between: the queue holds one
    assert worker.dropped == 1
    assert "queue full" in caplog.text
    await worker.drain()
    assert len(llm.requests) == 1
    await worker.close()
    assert worker.dropped == 1


async def test_stopping_drops_what_has_not_run(
    analyzer: TextAnalyzer,
    llm: FakeLlm,
    db: Database,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    worker, work = job(analyzer, llm, 5, db, clock)
    worker.start()
    assert worker.submit(work)
    assert worker.submit(work)
    with caplog.at_level(logging.WARNING, logger="services.context.importance.background_scorer"):
        await worker.close()
    assert worker.dropped == 2
    assert "stopped with 2 jobs not done" in caplog.text
    assert not worker.submit(work)  # stopped: refused, logged, not queued
    assert worker.dropped == 3


async def test_a_job_is_queued_only_when_the_request_commits(
    analyzer: TextAnalyzer, llm: FakeLlm, db: Database, clock: FakeClock
) -> None:
    worker, work = job(analyzer, llm, 5, db, clock)
    worker.start()

    async def failing_request() -> None:
        async with db.unit_of_work() as session:
            submit_after_commit(session, worker, work)
            raise RuntimeError("the request failed")

    with pytest.raises(RuntimeError):
        await failing_request()
    await worker.drain()
    assert llm.requests == []
    async with db.unit_of_work() as session:
        submit_after_commit(session, worker, work)
        assert not llm.requests  # not before the commit
    await worker.drain()
    assert len(llm.requests) == 1
    await worker.close()


async def test_a_full_queue_answers_with_rules_and_never_asks_inline(
    analyzer: TextAnalyzer,
    llm: FakeLlm,
    db: Database,
    clock: FakeClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    worker, _ = job(analyzer, llm, 1, db, clock)  # never started: nothing is accepted
    settings = Settings(_env_file=None, llm_base_url=llm.base_url)
    conversation = Conversation(
        [ChatMessage(m["role"], m["content"]) for m in MESSAGES], TASK, background=True
    )
    with caplog.at_level(logging.WARNING, logger="services.context.importance.background_scorer"):
        async with db.unit_of_work() as session:
            service = MessageScoringService(session, settings, worker.scorer, clock, worker)
            scores = await service.score("alice", conversation)
    assert [s.method for s in scores] == ["rule"] * 4
    assert not any(s.pending for s in scores)
    assert llm.requests == []
    assert worker.dropped == 1
    assert "keep their rule scores" in caplog.text
