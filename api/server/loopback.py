"""Without keys the service answers on loopback only, however it is served.

``jarvis-memory serve`` refuses to bind another address when no key is configured, but
``uvicorn --factory api.app:app_from_environment --host 0.0.0.0`` (or any other ASGI
server) never asks it: that served every route without auth on every interface (issue
29, finding 6). So the app checks each connection itself: with auth off, a request that
arrived on a network address that is not loopback is answered 403 ``loopback_only``.
The server's own address (ASGI ``scope["server"]``) is the interface the connection
came in on, so on 0.0.0.0 a local client is still served and a remote one is not; a
reverse proxy on the same machine reaches it through loopback, which is the operator's
choice to make. An address that is no IP (a Unix socket, an in-process test transport)
is not a network interface.
"""

from __future__ import annotations

import ipaddress

from starlette.types import ASGIApp, Receive, Scope, Send

from api.errors import error_response


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def on_network_interface(scope: Scope) -> bool:
    """Whether the request came in on a network address other than loopback."""
    server = scope.get("server")
    if not server or not server[0]:
        return False
    try:
        address = ipaddress.ip_address(server[0])
    except ValueError:
        return False
    return not address.is_loopback


class LoopbackOnly:
    """ASGI middleware for an app with auth off: 403 on any interface but loopback."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and on_network_interface(scope):
            response = error_response(
                403,
                "loopback_only",
                "auth is off (no JARVIS_API_KEYS or JARVIS_ADMIN_KEYS), so this service "
                "answers on loopback only; set keys to serve it on other addresses",
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)
