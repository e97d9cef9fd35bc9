"""``jarvis-memory users erase USER``: erase a person, as ``DELETE /v1/users/{user_id}``."""

from __future__ import annotations

import argparse

from api.cli.output import print_json, print_table
from services.access.erasure import PersonEraser
from services.core.db import Database
from services.core.settings import Settings


async def run_users_command(args: argparse.Namespace, settings: Settings) -> int:
    """Erase a person from DATABASE_URL's database, in one transaction; print the counts.

    A running server keeps nothing of them it could serve: its cached vectors and recalls
    are keyed by data the erasure removed (services/access/erasure.py)."""
    db = Database.from_settings(settings)
    try:
        async with db.unit_of_work() as session:
            erased = await PersonEraser(session).erase(args.user_id)
    finally:
        await db.dispose()
    if args.json:
        print_json({"user_id": erased.user_id, "erased": erased.counts, "total": erased.total})
    else:
        print_table(["kind", "removed"], sorted(erased.counts.items()))
        print(f"{erased.user_id}: {erased.total} rows erased")
    return 0
