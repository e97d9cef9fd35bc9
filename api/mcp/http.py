"""``/mcp``: the MCP tools over streamable HTTP, on the app, behind the ``/v1`` keys.

The endpoint authenticates the bearer key as every route does (api/auth.py) and hands
its scope to the tools in :data:`~api.mcp.tools.CALLER`: each tool call then checks that
the key reaches the call's ``user_id``.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI
from fastapi.security.utils import get_authorization_scheme_param
from mcp.server.mcpserver import MCPServer
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.datastructures import Headers
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from api.auth import authenticate
from api.errors import error_response
from api.mcp.server import build_mcp_server
from api.mcp.tools import CALLER
from services.composition import Services
from services.core.errors import DomainError
from services.core.settings import Settings

PATH = "/mcp"

# Without keys the app answers on loopback only (api/server/loopback.py); these Host and Origin
# checks also stop a web page that rebinds its own name to 127.0.0.1 from calling the
# tools through the user's browser. With keys, the key is what a page cannot have.
_LOOPBACK = TransportSecuritySettings(
    enable_dns_rebinding_protection=True,
    allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*", "127.0.0.1", "localhost", "[::1]"],
    allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"],
)
_KEYED = TransportSecuritySettings(enable_dns_rebinding_protection=False)


class McpEndpoint:
    """An ASGI app: the key check of ``/v1``, then the SDK's transport."""

    def __init__(
        self, state_of: Callable[[], Services], manager: StreamableHTTPSessionManager
    ) -> None:
        self.state_of = state_of
        self.manager = manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scheme, token = get_authorization_scheme_param(Headers(scope=scope).get("authorization"))
        try:
            caller = await authenticate(
                self.state_of(), token if scheme.lower() == "bearer" else None
            )
        except DomainError as exc:
            response = error_response(exc.status_code, exc.code, exc.message)
            if exc.status_code == 401:
                response.headers["WWW-Authenticate"] = "Bearer"
            await response(scope, receive, send)
            return
        # The SDK runs the call in tasks started from this one: they inherit the scope.
        reset = CALLER.set(caller)
        try:
            await self.manager.handle_request(scope, receive, send)
        finally:
            CALLER.reset(reset)


def mount_mcp(app: FastAPI, settings: Settings, state_of: Callable[[], Services]) -> MCPServer:
    """Serve the tools at ``/mcp``; the lifespan must run ``server.session_manager.run()``.

    Stateless, with JSON answers: a call needs nothing from an earlier one (the user id
    comes with each), so any process of ``serve --workers N`` can answer any request.
    """
    server = build_mcp_server(state_of)
    server.streamable_http_app(
        stateless_http=True,
        json_response=True,
        transport_security=_KEYED if settings.auth_enabled else _LOOPBACK,
    )
    endpoint = McpEndpoint(state_of, server.session_manager)
    app.router.routes.append(
        Route(PATH, endpoint, methods=["GET", "POST", "DELETE"], include_in_schema=False)
    )
    return server
