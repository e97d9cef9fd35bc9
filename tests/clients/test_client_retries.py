"""The client sends a request again after 503 ``database_busy``, waiting ``Retry-After``,
and only then: a loopback HTTP server answers busy as the service does (api/errors.py),
since real contention cannot be made to happen on cue."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from jarvis_memory_client import (
    AsyncJarvisMemory,
    DatabaseBusyError,
    JarvisMemory,
    ServerError,
    ServiceUnavailableError,
)

Answer = tuple[int, dict[str, str], dict[str, object]]

BUSY: Answer = (503, {"Retry-After": "7"}, {"error": {"code": "database_busy", "message": "retry"}})
NOT_READY: Answer = (503, {}, {"error": {"code": "not_ready", "message": "not migrated"}})
FAILED: Answer = (500, {}, {"error": {"code": "internal_error", "message": "failed"}})
STORED: Answer = (201, {}, {"id": 1, "content": "x"})


class Script(ThreadingHTTPServer):
    """Answers requests with ``answers`` in order and counts them."""

    answers: list[Answer]
    requests: int


class _Handler(BaseHTTPRequestHandler):
    server: Script

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        self.server.requests += 1
        status, headers, body = self.server.answers.pop(0)
        data = json.dumps(body).encode()
        self.send_response(status)
        for name, value in {**headers, "Content-Type": "application/json"}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *_args: object) -> None:
        pass


@pytest.fixture
def script() -> Iterator[Script]:
    server = Script(("127.0.0.1", 0), _Handler)
    server.answers, server.requests = [], 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def _url(server: Script) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The waits the clients asked for, instead of waiting them."""
    asked: list[float] = []

    async def async_sleep(seconds: float) -> None:
        asked.append(seconds)

    monkeypatch.setattr("jarvis_memory_client.client.time.sleep", asked.append)
    monkeypatch.setattr("jarvis_memory_client.async_client.asyncio.sleep", async_sleep)
    return asked


def test_busy_is_retried_after_retry_after_until_it_succeeds(
    script: Script, waits: list[float]
) -> None:
    script.answers = [BUSY, BUSY, STORED]
    with JarvisMemory(_url(script)) as memory:
        assert memory.remember("u", "x")["id"] == 1
    assert (script.requests, waits) == (3, [7.0, 7.0])


def test_busy_past_max_retries_raises_with_retry_after(script: Script, waits: list[float]) -> None:
    script.answers = [BUSY, BUSY]
    memory = JarvisMemory(_url(script), max_retries=1, max_retry_wait=5)
    with memory, pytest.raises(DatabaseBusyError) as busy:
        memory.remember("u", "x")
    assert busy.value.retry_after == 7.0
    assert (script.requests, waits) == (2, [5.0])  # capped by max_retry_wait


@pytest.mark.parametrize("answer", [NOT_READY, FAILED])
def test_other_failures_are_not_retried(script: Script, waits: list[float], answer: Answer) -> None:
    script.answers = [answer, STORED]
    memory = JarvisMemory(_url(script))
    with memory, pytest.raises((ServiceUnavailableError, ServerError)) as failed:
        memory.remember("u", "x")
    assert failed.value.code == answer[2]["error"]["code"]  # type: ignore[index]
    assert (script.requests, waits) == (1, [])


async def test_the_async_client_retries_too(script: Script, waits: list[float]) -> None:
    script.answers = [BUSY, STORED]
    async with AsyncJarvisMemory(_url(script)) as memory:
        assert (await memory.remember("u", "x"))["id"] == 1
    assert (script.requests, waits) == (2, [7.0])
