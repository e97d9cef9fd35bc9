"""The real server that the clients (the Python client, an MCP client over HTTP) talk to:
one per database for the whole package."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import AsyncExitStack

import pytest

from tests.conftest import BACKENDS
from tests.live_server import LiveServer, migrated_database, running_server


class _Servers:
    """One server per backend, started when a test first needs it and stopped when the
    session (the xdist worker's) ends.

    ``live`` is parametrized, and pytest tears a parametrized fixture down whenever its
    parameter changes: under ``--dist loadfile`` each file's SQLite tests, then its
    PostgreSQL ones, so every file started both servers again (10-20 s each on the
    loaded 2-core machine). Run without xdist, the package's files already shared them.
    """

    def __init__(self, tmp_path_factory: pytest.TempPathFactory, stack: AsyncExitStack) -> None:
        self._tmp = tmp_path_factory
        self._stack = stack  # a server stops before its database is dropped
        self._started: dict[str, LiveServer] = {}

    async def get(self, backend: str) -> LiveServer:
        if backend not in self._started:
            tmp = self._tmp.mktemp(f"client-{backend}")
            url = await self._stack.enter_async_context(migrated_database(backend, tmp))
            self._started[backend] = self._stack.enter_context(running_server(url, tmp))
        return self._started[backend]


@pytest.fixture(scope="session")
async def _live_servers(
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[_Servers]:
    async with AsyncExitStack() as stack:
        yield _Servers(tmp_path_factory, stack)


@pytest.fixture(scope="package", params=BACKENDS)
async def live(request: pytest.FixtureRequest, _live_servers: _Servers) -> LiveServer:
    return await _live_servers.get(request.param)
