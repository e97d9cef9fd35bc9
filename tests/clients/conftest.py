"""The real server that the clients (the Python client, an MCP client over HTTP) talk to:
one per database for the whole package."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.conftest import BACKENDS
from tests.live_server import LiveServer, migrated_database, running_server


@pytest.fixture(scope="package", params=BACKENDS)
async def live(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[LiveServer]:
    tmp = tmp_path_factory.mktemp(f"client-{request.param}")
    async with migrated_database(request.param, tmp) as url:
        with running_server(url, tmp) as server:
            yield server
