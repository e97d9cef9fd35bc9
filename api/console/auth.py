"""Who may see the console: an admin key, from a bearer header or the login cookie.

A bearer key goes through api/auth.py like any route's: any admin key that reaches every
user, from JARVIS_ADMIN_KEYS or ``jarvis-memory keys create --admin --scope all``. The
login form takes keys from JARVIS_ADMIN_KEYS only.

The login form takes an admin key and sets a cookie holding not the key but an HMAC of
a fixed label under it: the key never sits in the browser, and removing the key from
JARVIS_ADMIN_KEYS ends every session made with it. The cookie is HttpOnly and
SameSite=Strict (no other site's form can post "rescore now" with it), Secure over HTTPS.
With auth off (no keys; the service answers on loopback only) the console needs no login.
"""

from __future__ import annotations

import hashlib
import hmac

from fastapi import Request
from fastapi.security.utils import get_authorization_scheme_param

from api.auth import authenticate, authorize
from api.deps import StateDep
from services.core.errors import Unauthorized

COOKIE = "jarvis_console"
CONSOLE = "/admin/console"
_LABEL = b"jarvis-memory admin console session"


class LoginRequired(Exception):
    """No valid credential: the page answers with a redirect to the login form."""


def session_token(key: str) -> str:
    """The cookie value for an admin key."""
    return hmac.new(key.encode(), _LABEL, hashlib.sha256).hexdigest()


def _is_admin_key(key: str, admin_keys: list[str]) -> bool:
    return any(hmac.compare_digest(key.encode(), k.encode()) for k in admin_keys)


def valid_login(key: str, admin_keys: list[str]) -> bool:
    """Whether the login form's key is an admin key."""
    return bool(key) and _is_admin_key(key, admin_keys)


async def require_console(request: Request, state: StateDep) -> None:
    """A console page's guard: an admin bearer key, or the session cookie."""
    settings = state.settings
    if not settings.auth_enabled:
        return
    scheme, token = get_authorization_scheme_param(request.headers.get("Authorization"))
    if scheme.lower() == "bearer" and token:
        try:
            caller = await authenticate(state, token)
        except Unauthorized:
            raise LoginRequired from None
        # The console spans every user: an admin key for all users (else 403).
        authorize(caller, None, admin=True)
        return
    cookie = request.cookies.get(COOKIE, "")
    tokens = [session_token(k) for k in settings.jarvis_admin_keys]
    if cookie and any(hmac.compare_digest(cookie.encode(), t.encode()) for t in tokens):
        return
    raise LoginRequired
