"""The real app under uvicorn on loopback, in the test's event loop, in front of the
loopback model server (tests/chat_upstream.py): what the chat proxy's tests talk to with
the official ``openai`` client.

Served in the test's own loop, on the test's database (the rolled-back connection of
tests/conftest.py), so every test runs on SQLite and PostgreSQL and may change settings
(a short PROXY_TIMEOUT, no model server) without a process of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import uvicorn
from fastapi import FastAPI
from openai import AsyncOpenAI

from tests.api.helpers import body
from tests.timing import scaled

SERVICE_KEY = "proxy-service-key"


@dataclass
class ServedProxy:
    """Where the service listens, and clients of it."""

    url: str
    http: httpx.AsyncClient  # the service's own API, with the service key
    opened: list[AsyncOpenAI] = field(default_factory=list)

    def openai(self, key: str = SERVICE_KEY, **headers: str) -> AsyncOpenAI:
        """The official client pointed at the service (no retries: a 429 is the test's);
        closed when the service stops."""
        client = AsyncOpenAI(
            base_url=f"{self.url}/v1",
            api_key=key,
            max_retries=0,
            default_headers=headers,
            timeout=scaled(30),
        )
        self.opened.append(client)
        return client

    async def memories(self, person: str) -> list[dict[str, Any]]:
        """Every memory of ``person``, as the service lists them."""
        page = body(await self.http.get(f"/v1/users/{person}/memories?limit=100"), 200)
        items: list[dict[str, Any]] = page["items"]
        return items


@contextlib.asynccontextmanager
async def serving(app: FastAPI) -> AsyncIterator[ServedProxy]:
    """``app`` under uvicorn on a loopback port until the block ends."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    task = asyncio.create_task(server.serve(sockets=[listener]))
    try:
        async with asyncio.timeout(scaled(30)):
            while not server.started:
                assert not task.done(), "uvicorn stopped while starting"
                await asyncio.sleep(0.01)
        url = f"http://127.0.0.1:{port}"
        headers = {"Authorization": f"Bearer {SERVICE_KEY}"}
        async with httpx.AsyncClient(base_url=url, headers=headers) as http:
            served = ServedProxy(url, http)
            try:
                yield served
            finally:
                for client in served.opened:
                    await client.close()
    finally:
        server.should_exit = True
        await task
        listener.close()
