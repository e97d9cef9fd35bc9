"""The OpenAI-compatible memory proxy: ``POST /v1/chat/completions`` and ``GET /v1/models``.

A chat frontend points its OpenAI base URL at ``…/v1`` and keeps its code. The person is
named per request (a header, else the body's ``user``) instead of in the path, so the
key's scope is checked here, as :func:`api.auth.require_service_key` checks a
path's ``{user_id}``. What the model server answers reaches the client as it came: its
status, its body, its stream, chunk by chunk. Only failures to reach it at all are
answered in the service's error shape (502, 504); with no model server configured,
503 ``llm_not_configured``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Annotated, Any

from fastapi import APIRouter, Body, Depends, Header, Request
from fastapi.responses import Response, StreamingResponse

from api.auth import authorize, require_service_key
from api.deps import StateDep, ensure_schema_ready
from api.disconnect import until_disconnected
from api.errors import error_responses
from services.access.keys import KeyScope
from services.core.errors import InvalidInput
from services.proxy.chat_proxy import encode
from services.proxy.conversation import UserRequired, conversation_of, person_of
from services.proxy.upstream import PASSED_HEADERS, Upstream, read, relay

router = APIRouter(prefix="/v1", tags=["chat proxy"])

Scope = Annotated[KeyScope, Depends(require_service_key)]
OptionalHeader = Annotated[str | None, Header()]

_DESCRIPTION = """OpenAI's chat completions, with memory (docs/chat-proxy.md).

The body goes to the configured model server (``LLM_BASE_URL``) as OpenAI defines it;
fields the service does not know (tools, images, anything) pass through untouched, and
the answer (a server-sent event stream with ``stream: true``) comes back as the model
server sent it, its errors included.

The person is the ``X-Jarvis-User`` header, else Open WebUI's ``X-OpenWebUI-User-Id``,
else the body's ``user``; the key must reach them. Their memories for the conversation
are assembled in as ``POST /v1/users/{id}/context`` does, within the model's context
window (PROXY_CONTEXT_TOKENS, PROXY_MODEL_CONTEXT_TOKENS) less ``max_tokens``. After a
whole answer, the person's new turn (the last message, when it is theirs) is remembered
under the conversation: the ``X-Jarvis-Conversation`` header, else the frontend's own
(Open WebUI's ``X-OpenWebUI-Chat-Id``, the body's ``metadata.conversation_id`` or
``chat_id``), else one derived from the first user message; the answer's
``X-Jarvis-Conversation`` header says which. Nothing is remembered when the model server
fails. ``X-Jarvis-Memory: off`` forwards the request as it is and remembers nothing."""


def _messages(body: dict[str, Any]) -> list[dict[str, Any]]:
    """The request's messages, which memory needs as a non-empty list of objects."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise InvalidInput("messages must be a non-empty list")
    if not all(isinstance(m, dict) for m in messages):
        raise InvalidInput("every message must be an object")
    return messages


def _passed(headers: Any) -> dict[str, str]:
    return {name: headers[name] for name in PASSED_HEADERS if name in headers}


@router.post(
    "/chat/completions",
    description=_DESCRIPTION,
    responses=error_responses(422, 429, 502, 503, 504),
)
async def chat_completions(
    request: Request,
    body: Annotated[dict[str, Any], Body()],
    state: StateDep,
    scope: Scope,
    x_jarvis_user: OptionalHeader = None,
    x_jarvis_conversation: OptionalHeader = None,
    x_jarvis_memory: OptionalHeader = None,
    x_openwebui_user_id: OptionalHeader = None,
    x_openwebui_chat_id: OptionalHeader = None,
) -> Response:
    """Forward a chat completion with the person's memories; remember their turn."""
    proxy = state.chat_proxy()
    person = person_of(
        [
            ("X-Jarvis-User", x_jarvis_user),
            ("X-OpenWebUI-User-Id", x_openwebui_user_id),
            ("user", body.get("user")),
        ]
    )
    if person is not None:
        authorize(scope, person, admin=False)
    memory = (x_jarvis_memory or "on").strip().lower() != "off"
    conversation = None
    if memory:
        if person is None:
            raise UserRequired(
                "name the person whose memory this is: the X-Jarvis-User header or the "
                "body's user (or send X-Jarvis-Memory: off)"
            )
        messages = _messages(body)
        conversation = conversation_of(x_jarvis_conversation, x_openwebui_chat_id, body, messages)
        await ensure_schema_ready(state)
        forwarded = await proxy.with_memories(person, conversation, body)
    else:
        forwarded = proxy.passthrough(body)
    remember = None
    if person is not None and conversation is not None:
        remember = partial(proxy.remember_turn, person, conversation, _messages(body))
    headers = {"X-Jarvis-Conversation": conversation} if conversation is not None else {}
    return await until_disconnected(
        request, _answer(proxy.upstream, encode(forwarded), headers, remember)
    )


async def _answer(
    upstream: Upstream,
    forwarded: bytes,
    headers: dict[str, str],
    remember: Callable[[], Awaitable[None]] | None,
) -> Response:
    """The model server's answer as it came: its error, its stream relayed, or its whole
    body; ``remember`` runs once the answer is whole (never after an error)."""
    answer = await upstream.open("POST", "/chat/completions", forwarded)
    headers = {**_passed(answer.headers), **headers}
    if not answer.is_success:
        return Response(await read(answer), answer.status_code, headers)
    if answer.headers.get("content-type", "").startswith("text/event-stream"):
        return StreamingResponse(relay(answer, remember or _nothing), answer.status_code, headers)
    content = await read(answer)
    if remember is not None:
        await remember()
    return Response(content, answer.status_code, headers)


async def _nothing() -> None:
    return None


@router.get("/models", responses=error_responses(502, 503, 504))
async def models(state: StateDep) -> Response:
    """The model server's ``/models``, as it answers (any key may ask)."""
    proxy = state.chat_proxy()
    upstream = await proxy.upstream.open("GET", "/models")
    return Response(await read(upstream), upstream.status_code, _passed(upstream.headers))
