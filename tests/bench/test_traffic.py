"""The load generator and the footprint readings, against a real loopback HTTP server."""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from bench.footprint import process_memory_mib
from bench.traffic import ERROR_SAMPLES, Request, load_clients, run_window


class _Handler(BaseHTTPRequestHandler):
    """/ok answers 200, /fail 500, anything else 404."""

    protocol_version = "HTTP/1.1"  # keep-alive, as uvicorn

    def do_GET(self) -> None:
        status = {"/ok": 200, "/fail": 500}.get(self.path, 404)
        body = f"status {status}".encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass  # keep the test output clean


@pytest.fixture
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


OK = Request("ok", "GET", "/ok")
FAIL = Request("fail", "GET", "/fail")


async def test_window_times_successes_and_counts_errors_apart(base_url: str) -> None:
    def source(_client: int) -> Iterator[Request]:
        return itertools.cycle([OK, OK, FAIL])

    async with load_clients(base_url, 3) as clients:
        window = await run_window(clients, 0.2, source)

    # Every client ran past its untimed first request, and the window lasted ≥ 0.2 s.
    assert window.seconds >= 0.2
    assert window.completed("ok") >= 3
    assert window.completed() == window.completed("ok")  # failures are never timed
    assert all(seconds > 0 for seconds in window.latencies["ok"])
    # One in three requests fails; the warm-up requests were all /ok.
    assert window.errors["fail"] >= 3
    assert window.errors["fail"] <= window.completed("ok")
    assert 1 <= len(window.error_samples) <= ERROR_SAMPLES
    assert window.error_samples[0] == "fail: HTTP 500 status 500"


async def test_transport_errors_are_errors_not_crashes() -> None:
    closed = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    port = closed.server_address[1]
    closed.server_close()  # nothing listens there any more

    async with load_clients(f"http://127.0.0.1:{port}", 2) as clients:
        window = await run_window(clients, 0.05, lambda _i: itertools.repeat(OK))

    assert window.completed() == 0
    assert window.errors["ok"] >= 2  # at least the two warm-up requests
    assert window.error_samples[0].startswith("ok: ConnectError")


def test_process_memory_is_read_from_proc() -> None:
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc on this system")
    mine = process_memory_mib(os.getpid())
    assert mine is not None
    assert 0 < mine["rss"] <= mine["peak"]
    # A process that does not exist has no /proc entry: no reading, no exception.
    assert process_memory_mib(2**22 + 1) is None
