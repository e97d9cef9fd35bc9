"""Stop waiting for something once the client has hung up.

A streamed answer notices a client that went away (Starlette closes the stream, and
the proxy's relay closes the model server's request). A request still waiting for its
whole answer does not: the route would go on waiting, for minutes with a slow model.
:func:`until_disconnected` waits for the client's ``http.disconnect`` beside the work
and cancels the work when it comes.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

from fastapi import Request

T = TypeVar("T")


async def until_disconnected(request: Request, work: Awaitable[T]) -> T:
    """``work``'s result; cancelled (CancelledError) if the client hangs up first. Call
    it only once the request's body has been read: it reads what the client sends next,
    which is only the disconnect."""
    task = asyncio.ensure_future(work)

    async def watch() -> None:
        while (await request.receive())["type"] != "http.disconnect":
            pass
        task.cancel()

    watcher = asyncio.create_task(watch())
    try:
        return await task
    finally:
        watcher.cancel()
