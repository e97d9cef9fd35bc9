"""The configured OpenAI-compatible model server, as the proxy talks to it.

One connection pool per process (opened on first use, closed by the serving edge), so a
proxied request does not pay a new TLS handshake. Answers are opened as streams and
handed over unread: the caller relays or reads them. Bytes are relayed as the upstream
sent them: ``Accept-Encoding: identity`` asks for no compression, so the raw bytes are
the body. A time-out (``PROXY_TIMEOUT``: connecting, answering, and between two chunks)
is :class:`UpstreamTimeout`, any other transport failure :class:`UpstreamUnreachable`.
"""

from __future__ import annotations

import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Final

import anyio
import httpx

from services.core.settings import Settings
from services.proxy.errors import UpstreamTimeout, UpstreamUnreachable

log = logging.getLogger(__name__)

# The last event of an OpenAI stream, at the start of a line of a chunk.
_DONE: Final = re.compile(rb"(?:^|\n)data: ?\[DONE\]")
# Headers of the upstream's answer that say what the body is; the others (lengths,
# encodings, connection handling) belong to one hop, and X-Request-ID is the service's own.
PASSED_HEADERS: Final = ("content-type", "cache-control", "openai-processing-ms")


class Upstream:
    """POST and GET to ``LLM_BASE_URL`` with ``LLM_API_KEY``."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None,
        timeout: float,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._headers = {"Accept-Encoding": "identity"}
        if api_key:
            self._headers["Authorization"] = f"Bearer {api_key}"
        self._timeout = timeout
        self._transport = transport
        self._client: httpx.AsyncClient | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> Upstream | None:
        """The configured upstream, or None when no ``LLM_BASE_URL`` is set."""
        if not settings.llm_base_url:
            return None
        return cls(
            settings.llm_base_url, api_key=settings.llm_api_key, timeout=settings.proxy_timeout
        )

    def _http(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                timeout=self._timeout, transport=self._transport, headers=self._headers
            )
        return self._client

    async def open(self, method: str, path: str, body: bytes | None = None) -> httpx.Response:
        """The upstream's answer, its status and headers read and its body not; the caller
        closes it (:func:`read` and :func:`relay` do)."""
        headers = {"Content-Type": "application/json"} if body is not None else {}
        http = self._http()
        request = http.build_request(method, self.base_url + path, content=body, headers=headers)
        try:
            return await http.send(request, stream=True)
        except httpx.TimeoutException as exc:
            raise UpstreamTimeout(
                f"the model server did not answer within {self._timeout:g} seconds"
            ) from exc
        except httpx.HTTPError as exc:
            raise UpstreamUnreachable(
                f"the model server could not be reached: {type(exc).__name__}"
            ) from exc

    async def aclose(self) -> None:
        """Close the connection pool (the serving edge, at shutdown)."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None


async def read(response: httpx.Response) -> bytes:
    """The whole body of an answer that is not a stream, then closed."""
    try:
        return await response.aread()
    except httpx.TimeoutException as exc:
        raise UpstreamTimeout("the model server stopped answering before the end") from exc
    except httpx.HTTPError as exc:
        raise UpstreamUnreachable(
            f"the model server broke off its answer: {type(exc).__name__}"
        ) from exc
    finally:
        await response.aclose()


async def relay(
    response: httpx.Response, on_complete: Callable[[], Awaitable[None]]
) -> AsyncIterator[bytes]:
    """The upstream's stream, chunk by chunk as it arrives, never gathered.

    ``on_complete`` runs once the answer is whole: just before the chunk holding
    ``data: [DONE]`` is passed on, so a client that has read the whole stream finds the
    turn remembered when it sends the next request (or at the end of a stream that has
    no ``[DONE]``). A failure of ``on_complete`` is logged, never cuts the answer. A
    stream the upstream breaks off is not complete: it is logged and re-raised, so the
    client's connection breaks too rather than end as if the answer were whole. When the
    client goes away, the generator is closed and so is the upstream request.
    """
    completed = False

    async def complete() -> None:
        nonlocal completed
        completed = True
        try:
            await on_complete()
        except Exception:
            log.exception("the proxy could not remember the turn after the answer")

    try:
        async for chunk in response.aiter_raw():
            if not completed and _DONE.search(chunk):
                await complete()
            yield chunk
        if not completed:
            await complete()
    except httpx.HTTPError as exc:
        log.warning("the model server broke off its stream: %s: %s", type(exc).__name__, exc)
        raise
    finally:
        with anyio.CancelScope(shield=True):
            await response.aclose()
