"""Who is calling and which users they reach: the one place every route's key is checked.

:func:`authenticate` turns a bearer key into a :class:`KeyScope`: keys from
JARVIS_ADMIN_KEYS and JARVIS_API_KEYS reach every user, keys made with ``jarvis-memory
keys create`` reach every user or a user-id prefix (services/access/keys.py).
:func:`authorize` is the rule: a route about one user (a ``{user_id}`` in its path, or
the ``user_id`` argument of an MCP tool) needs a key that reaches that user; an admin
route needs an admin key; an admin route that is not about one user (listings, jobs,
stats, the console, ``/metrics``) spans every user, so it needs an admin key for all.

The ``/v1`` and ``/admin`` routers, ``/metrics``, the console and ``/mcp`` all call
these two; tests/api/test_key_scopes_api.py walks ``app.routes`` so a new route cannot
escape them.
"""

from __future__ import annotations

import hmac
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from api.deps import StateDep, ensure_schema_ready
from services.access.keys import SECRET_PREFIX, UNRESTRICTED, ApiKeyService, KeyScope, scope_of
from services.composition import Services
from services.core.errors import Forbidden, Unauthorized

# What a key from JARVIS_API_KEYS reaches: every user, not the admin routes.
EVERY_USER = KeyScope(user_prefix=None, admin=False)

_bearer = HTTPBearer(auto_error=False)
Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def _matches(token: str, keys: list[str]) -> bool:
    # Constant-time comparison against every key: no timing hint about which is close.
    return any(hmac.compare_digest(token.encode(), key.encode()) for key in keys)


async def authenticate(state: Services, token: str | None) -> KeyScope:
    """The scope of the caller's bearer key; 401 for none, an unknown or a revoked one.
    With auth off (no keys configured; the app answers on loopback only) every caller
    reaches everything."""
    settings = state.settings
    if not settings.auth_enabled:
        return UNRESTRICTED
    if not token:
        raise Unauthorized("missing bearer key")
    if _matches(token, settings.jarvis_admin_keys):
        return UNRESTRICTED
    if _matches(token, settings.jarvis_api_keys):
        return EVERY_USER
    if token.startswith(SECRET_PREFIX):
        # Read on every request, not cached: a revocation holds from the next request
        # on, in every process. One indexed probe in a reader.
        await ensure_schema_ready(state)
        async with state.db.reader() as session:
            key = await ApiKeyService(session, state.clock).find(token)
        if key is not None:
            if key.revoked_at is not None:
                raise Unauthorized("this key was revoked")
            return scope_of(key)
    raise Unauthorized("unknown key")


def authorize(scope: KeyScope, user_id: str | None, *, admin: bool) -> None:
    """Refuse (403) what ``scope`` does not reach: an admin route without an admin key,
    a user outside the key's prefix, a route spanning every user with a prefix key."""
    if admin and not scope.admin:
        raise Forbidden("a service key cannot use the admin API")
    if user_id is not None:
        if not scope.reaches(user_id):
            raise Forbidden(
                f"this key reaches only the users whose id starts with {scope.user_prefix!r}"
            )
    elif admin and not scope.every_user:
        raise Forbidden("this route spans every user: it needs an admin key for all users")


def _token(credentials: HTTPAuthorizationCredentials | None) -> str | None:
    return credentials.credentials if credentials else None


async def require_service_key(
    request: Request, state: StateDep, credentials: Credentials
) -> KeyScope:
    """``/v1`` routes: any valid key that reaches the path's ``{user_id}``."""
    scope = await authenticate(state, _token(credentials))
    authorize(scope, request.path_params.get("user_id"), admin=False)
    return scope


async def require_admin_key(
    request: Request, state: StateDep, credentials: Credentials
) -> KeyScope:
    """``/admin`` routes and ``/metrics``: an admin key that reaches the path's
    ``{user_id}``, or every user when the route is not about one."""
    scope = await authenticate(state, _token(credentials))
    authorize(scope, request.path_params.get("user_id"), admin=True)
    return scope
