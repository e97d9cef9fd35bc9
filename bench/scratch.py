"""One bench tenant in a scratch database of its own, for the diagnostic commands.

``python -m bench.diagnose`` and ``python -m bench.pruning`` each load the tenant the
bench would (same plan, same rows, VACUUM ANALYZEd on PostgreSQL), work on it, and drop
the database afterwards.
"""

from __future__ import annotations

import asyncio
import functools
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from bench.config import NOW, BenchClock, bench_settings
from bench.data import Generator
from bench.db import fresh_database
from bench.load import LoadResult, load_tenant, settle
from bench.plan import plan_tenant
from bench.scales import tenant_name
from services.composition import Services
from services.core.db import Database, build_engine
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer


@dataclass(frozen=True)
class ScratchTenant:
    """A loaded tenant and what working on it needs."""

    db: Database
    settings: Settings
    analyzer: TextAnalyzer
    loaded: LoadResult

    @property
    def user(self) -> str:
        return self.loaded.user_id

    @functools.cached_property
    def services(self) -> Services:
        """The composition root's services on the tenant, at the bench's fixed NOW."""
        return Services(self.settings, self.db, self.analyzer, BenchClock(NOW))


@asynccontextmanager
async def scratch_tenant(
    backend: str, size: int, seed: int, pg_server: str | None = None
) -> AsyncIterator[ScratchTenant]:
    """The bench's tenant of ``size`` memories (generator seed ``seed + size``), loaded."""
    settings = bench_settings()
    analyzer = TextAnalyzer(settings)
    await asyncio.to_thread(analyzer.warm)
    plan = await asyncio.to_thread(plan_tenant, seed + size, size, analyzer, settings, NOW)
    with tempfile.TemporaryDirectory() as tmp:
        async with fresh_database(backend, Path(tmp), pg_server) as url:
            db = Database(build_engine(url, pool_size=4))
            try:
                loaded = await load_tenant(db, settings, tenant_name(size), plan, NOW)
                await settle(db)
                yield ScratchTenant(db, settings, analyzer, loaded)
            finally:
                await db.dispose()


def bench_queries(seed: int, size: int, count: int) -> list[str]:
    """The first ``count`` recall queries the bench asks the tenant of ``size``."""
    gen = Generator(seed + size)
    return [gen.query() for _ in range(count)]
