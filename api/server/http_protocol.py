"""uvicorn's HTTP/1.1 protocol, answering a request it cannot parse in the service's shape.

uvicorn answers a request it cannot parse (raw UTF-8 in the path, a broken request line)
itself, before the app sees it, as ``text/plain`` "Invalid HTTP request received." (issue
29). Every server that ``jarvis-memory serve`` starts uses this protocol instead, so that
answer too is ``{"error": {"code", "message"}}``. (Another ASGI server keeps its own.)
"""

from __future__ import annotations

import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class JsonErrorsH11Protocol(H11Protocol):
    """h11, with a JSON 400 for what it cannot parse."""

    def send_400_response(self, msg: str) -> None:
        body = json.dumps(
            {"error": {"code": "bad_request", "message": f"malformed HTTP request: {msg}"}}
        ).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        for event in (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))
        self.transport.close()
