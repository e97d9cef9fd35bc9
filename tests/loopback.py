"""What every loopback test server shares: its thread and port, held answers, and
answering a request with a JSON body."""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Self


class LoopbackServer:
    """An HTTP server on a free loopback port, in a daemon thread once started; answers
    a handler holds wait for ``released``."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.released = threading.Event()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> Self:
        self.thread.start()
        return self

    def release(self) -> None:
        """Let every held answer go, and hold the next ones again."""
        self.released.set()
        self.released = threading.Event()

    def stop(self) -> None:
        self.release()
        self.server.shutdown()
        self.server.server_close()


def send_json(handler: BaseHTTPRequestHandler, status: int, data: bytes) -> None:
    """Write ``data`` as an ``application/json`` answer; a client that already gave up
    (a timeout test) is not an error."""
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass
