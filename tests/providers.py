"""Real HTTP servers on loopback speaking the OpenAI embeddings and the rerank shapes.

The embedding "model" is a toy with a concept table, so a paraphrase that shares no word
with its query still lands near it: each known word adds 1 to its concept's axis, any
other word but a stopword to one of a few hashed axes. The reranker scores a document by
the share of the query's concepts it holds. ``mode`` switches every answer to a failure: ``slow``
(answers only once released, so every client timeout fires first, however loaded the
machine), ``malformed`` (valid JSON of the wrong shape),
``garbage`` (not JSON), ``wrong_count`` (one vector short) or ``error`` (HTTP 500).
``hold`` holds (until released) any embeddings request with a text containing that
string and counts it in ``held`` (:meth:`ProviderServer.wait_held` waits for a count).
``refuse`` makes it fail (HTTP 400, as a provider does for a text it will not take) any
embeddings request with a text containing that string, and answer the others.
"""

from __future__ import annotations

import json
import re
import threading
import zlib
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.loopback import LoopbackServer, send_json
from tests.timing import scaled

CONCEPTS: dict[str, int] = {
    **dict.fromkeys(["sister", "sibling", "brother"], 0),
    **dict.fromkeys(["lives", "live", "resides", "reside", "home", "dwells"], 1),
    **dict.fromkeys(["lisbon", "city", "town", "portugal"], 2),
    **dict.fromkeys(["dog", "puppy", "pet", "canine"], 3),
    **dict.fromkeys(["guitar", "music", "instrument", "piano"], 4),
}
AXES = 12  # 5 concept axes, 7 hashed ones
STOPWORDS = frozenset(
    ["a", "an", "and", "at", "i", "in", "is", "my", "of", "s", "the", "to", "which"]
)
# A slow answer waits to be released (the provider fixture releases it after the test), at
# most this long: a client gives up first whatever the machine's speed, since nothing is
# answered before it does. Timing-dependent tests failed with a sleep of 2 s and a 0.5 s
# timeout for answers that did come, on a loaded machine.
HOLD_SECONDS = 60.0
# How long a client waits for a provider that answers (scaled: a loaded machine is slow),
# and for one that never does in time (it is held, so any timeout fires).
ANSWER_TIMEOUT = scaled(10)
GIVE_UP_TIMEOUT = 0.2


def timeout_for(mode: str) -> float:
    """The client timeout a test of ``mode`` should use."""
    return GIVE_UP_TIMEOUT if mode == "slow" else ANSWER_TIMEOUT


_WORD = re.compile(r"[a-z]+")


def toy_vector(text: str) -> list[float]:
    """Concept counts of a text (not normalised: the service normalises)."""
    vector = [0.0] * AXES
    for word in _WORD.findall(text.lower()):
        if word in STOPWORDS:
            continue
        axis = CONCEPTS.get(word)
        if axis is None:
            axis = 5 + zlib.crc32(word.encode()) % (AXES - 5)
        vector[axis] += 1.0
    return vector


def toy_relevance(query: str, document: str) -> float:
    """Share of the query's concepts found in the document."""
    wanted = {CONCEPTS[w] for w in _WORD.findall(query.lower()) if w in CONCEPTS}
    found = {CONCEPTS[w] for w in _WORD.findall(document.lower()) if w in CONCEPTS}
    return len(wanted & found) / len(wanted) if wanted else 0.0


class ProviderServer(LoopbackServer):
    """One loopback server answering ``/v1/embeddings`` and ``/v1/rerank``."""

    def __init__(self) -> None:
        self.mode = "ok"
        self.fail_after: int | None = None  # answer this many requests, then fail
        self.refuse: str | None = None  # fail a request with a text containing this
        self.hold: str | None = None  # hold a request with a text containing this
        self.held = 0  # requests held so far (for ``hold``)
        self._arrivals = threading.Condition()
        self.requests: list[tuple[str, dict[str, Any]]] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                owner.requests.append((self.path, body))
                status, answer = owner.answer(self.path, body)
                data = answer if isinstance(answer, bytes) else json.dumps(answer).encode()
                send_json(self, status, data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        super().__init__(Handler)

    def wait_held(self, count: int) -> None:
        """Block (a thread: ``asyncio.to_thread``) until ``count`` requests are held."""
        with self._arrivals:
            assert self._arrivals.wait_for(lambda: self.held >= count, HOLD_SECONDS)

    def paths(self) -> list[str]:
        return [path for path, _ in self.requests]

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        mode = self.mode
        if self.fail_after is not None and len(self.requests) > self.fail_after:
            mode = "error"
        if mode == "slow":
            self.released.wait(HOLD_SECONDS)
        if mode == "error":
            return 500, {"error": {"message": "internal error"}}
        if mode == "malformed":
            return 200, {"object": "list", "items": "nothing here"}
        if mode == "garbage":
            return 200, b"<html>not json</html>"
        if path == "/v1/embeddings":
            texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
            if self.hold is not None and any(self.hold in t for t in texts):
                released = self.released
                with self._arrivals:
                    self.held += 1
                    self._arrivals.notify_all()
                released.wait(HOLD_SECONDS)
            if self.refuse is not None and any(self.refuse in t for t in texts):
                return 400, {"error": {"message": "this input cannot be embedded"}}
            if mode == "wrong_count":
                texts = texts[:-1]
            data = [
                {"object": "embedding", "index": i, "embedding": toy_vector(t)}
                for i, t in enumerate(texts)
            ]
            # Answered in reverse: clients must order by "index", not by position.
            return 200, {"object": "list", "model": body["model"], "data": data[::-1]}
        if path == "/v1/rerank":
            scores = [toy_relevance(body["query"], d) for d in body["documents"]]
            results = [{"index": i, "relevance_score": s} for i, s in enumerate(scores)]
            results.sort(key=lambda r: -float(str(r["relevance_score"])))
            return 200, {"results": results[: body["top_n"]]}
        return 404, {"error": "no such path"}
