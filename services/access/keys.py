"""API keys bound to users.

A key reaches every user, or only the user ids that start with a prefix (a tenant:
``prefix:acme:`` reaches ``acme:alice`` and not ``globex:bob``). Admin keys may also use
the routes that are not about one user (``/admin``, the console, ``/metrics``); those
span every user, so they need an admin key that reaches every user.

Keys from JARVIS_API_KEYS and JARVIS_ADMIN_KEYS reach every user, as before. Keys made
with ``jarvis-memory keys create`` live in ``api_keys``: a secret of 256 random bits
shown once, stored as its SHA-256 (a fast hash is enough for a secret nobody can guess;
a slow one protects low-entropy passwords). Each request with such a key reads its row,
so a revocation holds from the next request on, in every process.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession

from models import ApiKey
from services.core.clock import Clock
from services.core.errors import DomainError, InvalidInput
from services.core.validation import check_text
from services.repositories.api_keys import ApiKeyRepository

# Every secret starts with this: a leaked one is recognisable (secret scanners), and a
# bearer token without it is not looked up in the database.
SECRET_PREFIX = "jmk_"
HINT_CHARS = 12  # the prefix and 8 characters of the secret
_PREFIX_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:@-"


class KeyNotFound(DomainError):
    """No key with this id."""

    code = "key_not_found"
    status_code = 404

    def __init__(self, key_id: int) -> None:
        super().__init__(f"key {key_id} not found")


@dataclass(frozen=True)
class KeyScope:
    """What a caller's key reaches: every user (``user_prefix`` None) or those whose id
    starts with ``user_prefix``; ``admin`` keys also reach the admin routes."""

    user_prefix: str | None
    admin: bool
    key_id: int | None = None  # None: a key from the environment (or auth off)

    def reaches(self, user_id: str) -> bool:
        """Whether this key may act on ``user_id``."""
        return self.user_prefix is None or user_id.startswith(self.user_prefix)

    @property
    def every_user(self) -> bool:
        return self.user_prefix is None

    def describe(self) -> str:
        """``all`` or ``prefix:<p>``: the CLI's own notation."""
        return "all" if self.user_prefix is None else f"prefix:{self.user_prefix}"


UNRESTRICTED = KeyScope(user_prefix=None, admin=True)


def parse_scope(text: str) -> str | None:
    """``all`` → None; ``prefix:<p>`` → ``p`` (1-128 characters a user id may contain)."""
    if text == "all":
        return None
    if text.startswith("prefix:"):
        prefix = text.removeprefix("prefix:")
        if 1 <= len(prefix) <= 128 and all(c in _PREFIX_CHARS for c in prefix):
            return prefix
    raise InvalidInput(
        "scope must be all or prefix:<p>, p being 1-128 characters of [A-Za-z0-9_.:@-]"
    )


def hash_secret(secret: str) -> str:
    """The stored form of a secret."""
    return hashlib.sha256(secret.encode()).hexdigest()


def scope_of(key: ApiKey) -> KeyScope:
    return KeyScope(user_prefix=key.user_prefix, admin=key.admin, key_id=key.id)


@dataclass(frozen=True)
class CreatedKey:
    """A new key and its secret, which exists nowhere else: show it once."""

    key: ApiKey
    secret: str


class ApiKeyService:
    """Create, list, revoke and look up database keys (the CLI and the auth dependency)."""

    def __init__(self, session: AsyncSession, clock: Clock) -> None:
        self.repo = ApiKeyRepository(session)
        self.clock = clock

    async def create(self, name: str, scope: str, *, admin: bool = False) -> CreatedKey:
        """A new key reaching ``scope`` (``all`` or ``prefix:<p>``)."""
        name = check_text(name.strip(), "name")
        if not 1 <= len(name) <= 128:
            raise InvalidInput("name must be 1-128 characters")
        prefix = parse_scope(scope)
        secret = SECRET_PREFIX + secrets.token_urlsafe(32)
        key = ApiKey(
            name=name,
            secret_hash=hash_secret(secret),
            hint=secret[:HINT_CHARS],
            user_prefix=prefix,
            admin=admin,
            created_at=self.clock(),
        )
        return CreatedKey(await self.repo.add(key), secret)

    async def all_keys(self) -> list[ApiKey]:
        """Every key, revoked ones included, oldest first."""
        return await self.repo.all()

    async def revoke(self, key_id: int) -> ApiKey:
        """Revoke a key (again: no change); refused from the next request on."""
        key = await self.repo.get(key_id)
        if key is None:
            raise KeyNotFound(key_id)
        if key.revoked_at is None:
            key.revoked_at = self.clock()
        return key

    async def find(self, secret: str) -> ApiKey | None:
        """The key with this secret, revoked or not; None for no such key."""
        if not secret.startswith(SECRET_PREFIX):
            return None
        return await self.repo.by_hash(hash_secret(secret))
