"""A real chat-completions server on loopback (stdlib http.server in a thread).

It answers every "[i] ROLE: …" line of the prompt with the seed's ``{"index", "score",
"reason"}`` (``score`` chosen by the test), in a shape chosen by the test: clean JSON,
fenced with prose around it, cut off mid-array, the four content dimensions instead of a
score, malformed, slow, or an HTTP error. It records every request it received.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.loopback import send_json

_LINE = re.compile(r"^\[(\d+)\] ", re.M)


@dataclass
class FakeLlm:
    """What the server answers and what it has been asked."""

    mode: str = "json"
    score: float = 9.0
    delay: float = 0.0
    released: threading.Event = field(default_factory=threading.Event)
    requests: list[dict[str, Any]] = field(default_factory=list)
    base_url: str = ""

    def asked_indexes(self, request: int = -1) -> list[int]:
        """The message indexes one request's prompt listed."""
        prompt = self.requests[request]["messages"][0]["content"]
        return [int(i) for i in _LINE.findall(prompt)]

    def answer(self, prompt: str) -> tuple[int, str]:
        items: list[dict[str, Any]] = [
            {"index": int(i), "score": self.score, "reason": "从 LLM"}
            for i in _LINE.findall(prompt)
        ]
        if self.mode == "dimensions":
            items = [
                {
                    "index": it["index"],
                    "relevance": 9,
                    "information": 8,
                    "operation": 1,
                    "decision": 6,
                }
                for it in items
            ]
        text = json.dumps(items, ensure_ascii=False)
        if self.mode == "fenced":
            text = f"<think>评分中</think>好的，结果如下：\n```json\n{text}\n```\n希望有帮助。"
        elif self.mode == "truncated":
            text = text[: len(text) * 2 // 3]  # cut mid-array: only complete objects count
        elif self.mode == "malformed":
            text = "I cannot score these messages."
        if self.mode == "error":
            return 500, json.dumps({"error": "boom"})
        if self.mode == "no_choices":
            return 200, json.dumps({"id": "x"})
        return 200, json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]})


@contextmanager
def serve(llm: FakeLlm) -> Iterator[FakeLlm]:
    """Run the server for the duration of the block; ``llm.base_url`` ends in /v1."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", 0))
            request = json.loads(self.rfile.read(length))
            request["authorization"] = self.headers.get("Authorization")
            request["path"] = self.path
            llm.requests.append(request)
            if llm.delay:
                # Held until released or ``delay`` passes: a client timeout shorter than
                # the delay fires first however loaded the machine (no answer races it).
                llm.released.wait(llm.delay)
            status, payload = llm.answer(request["messages"][0]["content"])
            data = payload.encode()
            send_json(self, status, data)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    llm.base_url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        yield llm
    finally:
        llm.released.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


class SummaryLlm(FakeLlm):
    """Answers the summary prompt with headings and cards."""

    def answer(self, prompt: str) -> tuple[int, str]:
        if self.mode == "error":
            return 500, "{}"
        text = json.dumps(
            {
                "Goal": ["把缓存迁移到 Redis"],
                "Decisions": ["端口定为 6039"],
                "cards": [
                    {"content": "缓存用 Redis，端口 6039", "type": "decision", "tags": ["redis"]},
                    {"content": "ignored", "type": "nonsense"},
                ],
            },
            ensure_ascii=False,
        )
        return 200, json.dumps({"choices": [{"message": {"content": f"```json\n{text}\n```"}}]})
