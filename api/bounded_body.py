"""A request body read up to a bound: what a route reads whole before it can check it."""

from __future__ import annotations

from fastapi import Request

from services.core.errors import TooLarge


async def read_bounded(request: Request, limit: int, refusal: str) -> bytes:
    """The request's body, refused with 413 ``too_large`` (``refusal`` its message) as
    soon as it passes ``limit`` bytes; a declared Content-Length over it is refused before
    anything is read."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise TooLarge(refusal)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise TooLarge(refusal)
        chunks.append(chunk)
    return b"".join(chunks)
