"""``python -m docsgen``: regenerate the README walkthrough and command-line sample,
docs/configuration.md and docs/person-export.schema.json."""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
from asgi_lifespan import LifespanManager

from api.app import create_app
from docsgen import cli_sample, configuration, export_schema, walkthrough
from services.composition import Services
from services.core.schema import migrate
from services.core.settings import Settings
from services.embeddings.jobs import run_embedding_backfill

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
CONFIGURATION = ROOT / "docs" / "configuration.md"
EXPORT_SCHEMA = ROOT / "docs" / "person-export.schema.json"


# What `make run` serves (Makefile: EMBEDDING_PROVIDER ?= local): the walkthrough answers
# as the service a reader starts answers.
MAKE_RUN_EMBEDDING_PROVIDER = "local"
# The requests that read memories by meaning: the vectors of every earlier write are made
# before them, as the scheduler does two seconds after a write (make run's backfill).
READS = ("/recall", "/context")


@asynccontextmanager
async def fresh_service(url: str) -> AsyncIterator[httpx.AsyncClient]:
    """The real app, lifespan included, on ``url`` (an empty, migrated database), with its
    clock frozen at the start (walkthrough.frozen_clock), configured as ``make run``
    serves it: the bundled multilingual model on, and the backfill job run before every
    recall (the scheduler's own timing is off: a walkthrough must not depend on it)."""
    settings = Settings(
        _env_file=None,
        database_url=url,
        scheduler_enabled=False,
        freeze_startup_heap=False,
        embedding_provider=MAKE_RUN_EMBEDDING_PROVIDER,
    )
    app = create_app(settings, clock=walkthrough.frozen_clock())

    async def embedded_first(request: httpx.Request) -> None:
        services: Services = app.state.jarvis
        if services.embeddings is not None and request.url.path.endswith(READS):
            run = await run_embedding_backfill(
                services.db, settings, services.clock, services.embeddings
            )
            if run.status != "succeeded":
                raise RuntimeError(f"the walkthrough's backfill failed: {run.error}")

    async with (
        # Its default 5 s to start (jieba's dictionaries) was too short on a loaded machine.
        LifespanManager(app, startup_timeout=120, shutdown_timeout=120),
        httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app),
            base_url="http://docs",
            event_hooks={"request": [embedded_first]},
        ) as c,
    ):
        yield c


async def live_walkthrough() -> str:
    """The walkthrough block as a fresh service on the embedded SQLite default answers it."""
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'walkthrough.db'}"
        await migrate(url)
        async with fresh_service(url) as client:
            return walkthrough.render(await walkthrough.run(client))


def main() -> int:
    """Write the README and docs/configuration.md (or, with --check, say which are stale
    and exit 1)."""
    parser = argparse.ArgumentParser(prog="python -m docsgen", description=__doc__)
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args()
    readme = README.read_text(encoding="utf-8")
    block = asyncio.run(live_walkthrough())
    sample = cli_sample.render(cli_sample.run())
    config = configuration.render()
    stale = walkthrough.differences(walkthrough.extract(readme), block)
    stale += cli_sample.differences(cli_sample.extract(readme), sample)
    stale_config = (
        CONFIGURATION.read_text(encoding="utf-8") != config if CONFIGURATION.exists() else True
    )
    schema = export_schema.render()
    stale_schema = (
        EXPORT_SCHEMA.read_text(encoding="utf-8") != schema if EXPORT_SCHEMA.exists() else True
    )
    if args.check:
        for line in stale:
            print(line, file=sys.stderr)
        if stale_config:
            print("docs/configuration.md differs from the settings", file=sys.stderr)
        if stale_schema:
            print("docs/person-export.schema.json differs from the export", file=sys.stderr)
        return 1 if stale or stale_config or stale_schema else 0
    readme = cli_sample.replace(walkthrough.replace(readme, block), sample)
    README.write_text(readme, encoding="utf-8")
    CONFIGURATION.write_text(config, encoding="utf-8")
    EXPORT_SCHEMA.write_text(schema, encoding="utf-8")
    print(
        f"wrote {README.name} (walkthrough, command-line sample), "
        f"{CONFIGURATION.relative_to(ROOT)} and {EXPORT_SCHEMA.relative_to(ROOT)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
