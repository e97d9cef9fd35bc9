"""``jarvis-memory users erase|export|import USER``: a person's data, as the routes under
``/v1/users/{user_id}`` (erase: DELETE, export: GET …/export, import: POST …/import)."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any, BinaryIO

from api.cli.output import print_json, print_table
from services.composition import Services
from services.core.settings import Settings


async def run_users_command(args: argparse.Namespace, settings: Settings) -> int:
    """One of the person commands on DATABASE_URL's database, through the services the
    server builds."""
    services = Services.from_settings(settings)
    try:
        if args.action == "export":
            return await _export(services, args.user_id, args.output)
        if args.action == "import":
            return await _import(services, args)
        return await _erase(services, args)
    finally:
        await services.db.dispose()


async def _erase(services: Services, args: argparse.Namespace) -> int:
    """Erase a person, in one transaction; print the counts.

    A running server keeps nothing of them it could serve: its cached vectors and recalls
    are keyed by data the erasure removed (services/access/erasure.py)."""
    async with services.db.unit_of_work() as session:
        erased = await services.erasure(session).erase(args.user_id)
    if args.json:
        print_json({"user_id": erased.user_id, "erased": erased.counts, "total": erased.total})
    else:
        print_table(["kind", "removed"], sorted(erased.counts.items()))
        print(f"{erased.user_id}: {erased.total} rows erased")
    return 0


async def _export(services: Services, user_id: str, output: Path | None) -> int:
    """Write the export line by line; to a file only once it is whole (a failed export
    leaves no partial file behind)."""
    if output is None:
        await _write_lines(services, user_id, sys.stdout.buffer)
        sys.stdout.flush()
        return 0
    partial = output.with_name(output.name + ".partial")
    try:
        with partial.open("wb") as file:
            await _write_lines(services, user_id, file)
        partial.replace(output)
    finally:
        partial.unlink(missing_ok=True)
    return 0


async def _write_lines(services: Services, user_id: str, out: BinaryIO) -> None:
    async for line in services.exporter().lines(user_id):
        out.write(line)


async def _import(services: Services, args: argparse.Namespace) -> int:
    """Import a file (or standard input) in one unit of work; print what it wrote."""
    source = sys.stdin.buffer.read if args.path == "-" else Path(args.path).read_bytes
    data = await asyncio.to_thread(source)
    async with services.db.unit_of_work() as session:
        imported = await services.importer(session).import_lines(args.user_id, data.splitlines())
    summary: dict[str, Any] = {"user_id": imported.user_id, "imported": imported.counts}
    if args.json:
        print_json(summary)
    else:
        print_table(["kind", "imported"], list(imported.counts.items()))
        print(f"{imported.user_id}: {imported.counts['memory']} memories imported")
    return 0
