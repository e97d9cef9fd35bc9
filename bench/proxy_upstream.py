"""A loopback OpenAI-compatible model server for the chat proxy's benchmark.

It streams a fixed answer (``TOKENS``, one server-sent event each) to every chat
completion and notes, the moment a request arrives, the CPU time the watched process
(the service) has spent so far: that minus the CPU time read just before the request
was sent is what the service spent before the model received it. Each stream sends its
first event and then waits until the client says it has received it (``first_seen``,
at most ``HOLD_SECONDS``): a relay that gathered the stream would hand nothing over
before the model finished, so the wait runs out and the stream counts as buffered. The
wait is on an event, not a clock, so a fast or slow machine gives the same verdict.
Requests for ``INTERNAL_MODEL`` (the service's own LLM calls) get a quick 500 and are
only counted: the service falls back to its rules.

Kept apart from tests/chat_upstream.py: the benchmark does not import the tests, and
needs neither their error modes nor their recording of bodies.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Final

from bench.cpu import process_cpu_ns

TOKENS: Final = ["The", " answer", " is", " forty", "-two", "."]
INTERNAL_MODEL: Final = "bench-internal"
HOLD_SECONDS: Final = 10.0


@dataclass(frozen=True)
class Arrival:
    """A chat completion as it reached the model server."""

    at: float  # time.perf_counter()
    service_cpu_ns: int | None  # the watched process's CPU time so far


def _event(delta: dict[str, Any], finish: str | None = None) -> bytes:
    chunk = {
        "id": "chatcmpl-bench",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "bench-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(chunk).encode() + b"\n\n"


EVENTS: Final = [
    _event({"role": "assistant", "content": ""}),
    *(_event({"content": token}) for token in TOKENS),
    _event({}, "stop"),
    b"data: [DONE]\n\n",
]


class BenchUpstream:
    """The model server, in a daemon thread on a free loopback port."""

    def __init__(self) -> None:
        self.watched_pid: int | None = None
        self.arrivals: list[Arrival] = []
        self.first_seen = threading.Event()
        self.buffered = 0  # streams whose first event the client never saw in time
        self.internal = 0  # the service's own LLM calls
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as a model provider
            disable_nagle_algorithm = True  # each event leaves when written

            def do_POST(self) -> None:
                pid = owner.watched_pid
                arrival = Arrival(time.perf_counter(), None if pid is None else process_cpu_ns(pid))
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                if body.get("model") == INTERNAL_MODEL:
                    owner.internal += 1
                    self._send(500, b'{"error": {"message": "not for the service"}}')
                    return
                owner.arrivals.append(arrival)
                owner.stream(self)

            def do_GET(self) -> None:
                self._send(200, b'{"object": "list", "data": []}')

            def _send(self, status: int, data: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """What ``LLM_BASE_URL`` is set to (ends in ``/v1``)."""
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> BenchUpstream:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.first_seen.set()
        self.server.shutdown()
        self.server.server_close()

    def stream(self, handler: BaseHTTPRequestHandler) -> None:
        """The answer as chunked server-sent events, held after the first event until the
        client has it."""
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        for index, event in enumerate(EVENTS):
            handler.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
            handler.wfile.flush()
            if index == 0 and not self.first_seen.wait(HOLD_SECONDS):
                self.buffered += 1
        handler.wfile.write(b"0\r\n\r\n")
        handler.wfile.flush()
