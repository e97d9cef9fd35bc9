"""A real OpenAI-compatible model server on loopback, for the chat proxy's tests.

It answers deterministically and records what it received. ``mode`` says how it answers
a chat completion: ``answer`` (the text :data:`TOKENS`, streamed one token per event
with ``stream``), ``tool_call`` (a call of :data:`TOOL_CALL`), ``status`` (``status``
and :data:`ERROR_BODY`, as a provider's 429 or 500), ``hold`` (nothing until released:
every time-out fires first, whatever the machine's speed) or ``gated`` (a stream's first
event, then the rest only once ``gate`` is set). While it holds an answer, it notes in
``closed`` when the proxy hangs up on it. Requests for :data:`INTERNAL_MODEL` (the service's own LLM
calls: message scoring, summaries) are answered apart and not recorded.
"""

from __future__ import annotations

import json
import select
import socket
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any, Final

from tests.loopback import LoopbackServer, send_json

TOKENS: Final = ["Hello", ",", " Ada", "!", " 你好", "."]
INTERNAL_MODEL: Final = "jarvis-internal"
ERROR_BODY: Final = {
    "error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit"}
}
TOOL_CALL: Final = {
    "id": "call_1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Lisbon"}'},
}
MODELS: Final = {
    "object": "list",
    "data": [{"id": "upstream-model", "object": "model", "created": 0, "owned_by": "test"}],
}
HOLD_SECONDS: Final = 60.0


@dataclass(frozen=True)
class Received:
    """One request the upstream received."""

    path: str
    body: dict[str, Any]
    headers: dict[str, str]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    event = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": "upstream-model",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(event).encode() + b"\n\n"


def stream_events(mode: str) -> list[bytes]:
    """The server-sent events of a streamed answer in ``mode``, as sent."""
    if mode == "tool_call":
        call = {**TOOL_CALL, "index": 0}
        events = [_chunk({"role": "assistant", "tool_calls": [call]}), _chunk({}, "tool_calls")]
    else:
        events = [_chunk({"role": "assistant", "content": ""})]
        events += [_chunk({"content": token}) for token in TOKENS]
        events.append(_chunk({}, "stop"))
    return [*events, b"data: [DONE]\n\n"]


def completion(mode: str) -> dict[str, Any]:
    """The answer of a request that is not streamed, with a field OpenAI does not define."""
    if mode == "tool_call":
        message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [TOOL_CALL]}
        finish = "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": "".join(TOKENS)}, "stop"
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "upstream-model",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 6, "total_tokens": 9},
        "x_upstream_extra": {"kept": True},
    }


def _hung_up(connection: socket.socket) -> bool:
    """The peer closed the connection (readable, with nothing to read)."""
    readable, _, _ = select.select([connection], [], [], 0.01)
    return bool(readable) and connection.recv(1, socket.MSG_PEEK) == b""


class ChatUpstream(LoopbackServer):
    """One loopback server answering ``/v1/chat/completions`` and ``/v1/models``."""

    def __init__(self) -> None:
        self.mode = "answer"
        self.status = 429
        self.requests: list[Received] = []
        self.gate = threading.Event()
        self.first_sent = threading.Event()
        self.closed = threading.Event()
        self.arrived = threading.Event()  # a chat completion was received
        owner = self

        class Handler(BaseHTTPRequestHandler):
            # Each event is its own write: without this, Nagle's algorithm holds the
            # next one for the client's delayed acknowledgement (40 ms a request).
            disable_nagle_algorithm = True

            def do_GET(self) -> None:
                send_json(self, 200, json.dumps(MODELS).encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                if body.get("model") == INTERNAL_MODEL:
                    send_json(self, 500, b'{"error": {"message": "not for the service"}}')
                    return
                owner.requests.append(Received(self.path, body, dict(self.headers)))
                owner.arrived.set()
                owner.answer(self, body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        super().__init__(Handler)

    def reset(self) -> None:
        """Answer normally again, with nothing recorded; let held answers go."""
        self.mode, self.status = "answer", 429
        self.requests.clear()
        self.release()
        for event in (self.gate, self.first_sent, self.closed, self.arrived):
            event.clear()

    def stop(self) -> None:
        self.gate.set()
        super().stop()

    def chats(self) -> list[Received]:
        """The chat completions received, in order."""
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def answer(self, handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> None:
        mode = self.mode
        if mode == "status":
            send_json(handler, self.status, json.dumps(ERROR_BODY).encode())
            return
        if mode == "hold":
            self._hold(handler, self.released)
            return
        if not body.get("stream"):
            send_json(handler, 200, json.dumps(completion(mode)).encode())
            return
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Cache-Control", "no-cache")
        handler.end_headers()
        try:
            for index, event in enumerate(stream_events(mode)):
                handler.wfile.write(event)
                handler.wfile.flush()
                if index == 0 and mode == "gated":
                    self.first_sent.set()
                    if not self._hold(handler, self.gate):
                        return
        except (BrokenPipeError, ConnectionResetError):
            self.closed.set()

    def _hold(self, handler: BaseHTTPRequestHandler, until: threading.Event) -> bool:
        """Wait for ``until`` (at most HOLD_SECONDS); False, noted in ``closed``, when the
        proxy hangs up first."""
        for _ in range(int(HOLD_SECONDS / 0.02)):
            if until.wait(0.01):
                return True
            if _hung_up(handler.connection):
                self.closed.set()
                return False
        return False
