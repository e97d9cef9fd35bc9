"""``jarvis-memory keys create|list|revoke``: API keys stored hashed in the database.

The secret is printed once, by ``create``; the database keeps its SHA-256 only
(services/access/keys.py). A revoked key is refused from the next request on.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from api.cli.output import print_json, print_table
from api.presenters import iso
from models import ApiKey
from services.access.keys import ApiKeyService, KeyScope, scope_of
from services.core.clock import utcnow
from services.core.db import Database
from services.core.settings import Settings


def _key_out(key: ApiKey) -> dict[str, Any]:
    scope: KeyScope = scope_of(key)
    return {
        "id": key.id,
        "name": key.name,
        "hint": key.hint,
        "scope": scope.describe(),
        "admin": key.admin,
        "created_at": iso(key.created_at),
        "revoked_at": iso(key.revoked_at) if key.revoked_at else None,
    }


async def run_keys_command(args: argparse.Namespace, settings: Settings) -> int:
    """Create, list or revoke keys in DATABASE_URL's database."""
    db = Database.from_settings(settings)
    secret: str | None = None
    try:
        async with db.unit_of_work() as session:
            service = ApiKeyService(session, utcnow)
            if args.action == "create":
                created = await service.create(args.name, args.scope, admin=args.admin)
                keys, secret = [_key_out(created.key)], created.secret
            elif args.action == "revoke":
                keys = [_key_out(await service.revoke(args.id))]
            else:
                keys = [_key_out(k) for k in await service.all_keys()]
    finally:
        await db.dispose()
    if args.json:
        if args.action == "list":
            print_json(keys)
        else:
            print_json({**keys[0], "secret": secret} if secret else keys[0])
    elif args.action == "list":
        print_table(_HEADERS, [_row(k) for k in keys])
    elif secret:
        _print_created(keys[0], secret, settings)
    else:
        print(f"key {keys[0]['id']} ({keys[0]['name']}) revoked at {keys[0]['revoked_at']}")
    return 0


_HEADERS = ["id", "name", "scope", "admin", "hint", "created", "revoked"]


def _row(key: dict[str, Any]) -> list[Any]:
    admin = "yes" if key["admin"] else ""
    return [
        key["id"],
        key["name"],
        key["scope"],
        admin,
        key["hint"],
        key["created_at"],
        key["revoked_at"] or "",
    ]


def _print_created(key: dict[str, Any], secret: str, settings: Settings) -> None:
    """The secret alone on standard output (for ``$(...)``), the rest on standard error."""
    kind = "admin key" if key["admin"] else "key"
    print(f"{kind} {key['id']} ({key['name']}, scope {key['scope']}):", file=sys.stderr)
    print(secret)
    print("the secret is shown only now: store it where the caller reads it", file=sys.stderr)
    if not settings.auth_enabled:
        print(
            "auth is off (no JARVIS_API_KEYS, JARVIS_ADMIN_KEYS or JARVIS_AUTH_REQUIRED): "
            "set JARVIS_AUTH_REQUIRED=true for the server to ask for keys",
            file=sys.stderr,
        )
