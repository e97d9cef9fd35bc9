"""Schemathesis over every operation of the OpenAPI document, on both databases: 0 server
errors and 0 answers that break the document.

A bounded, seeded run (``derandomize``: the same cases every time), positive cases (what
the document allows, so the server must answer as documented) and negative ones (what
it forbids, so the server must refuse it as documented, not fail), with an admin key, on
a fresh migrated database of each backend. Checks: no 5xx, documented status codes,
content types and headers, and every body valid against its response schema.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import hypothesis
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase
from hypothesis.errors import Unsatisfiable
from schemathesis import checks
from schemathesis.core.result import Ok
from schemathesis.generation.modes import GenerationMode
from schemathesis.python.asgi import shutdown_lifespans

from api.app import create_app
from services.core.settings import Settings
from tests.conftest import BACKENDS
from tests.db_backends import migrated_copy

KEY = "schemathesis-admin-key"
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_headers_conformance,
    checks.response_schema_conformance,
]
# Cases per operation and mode: some 26 operations x (4 + 3), a few hundred requests per
# backend in all, to keep make test within its time.
EXAMPLES = {GenerationMode.POSITIVE: 4, GenerationMode.NEGATIVE: 3}
# The chat proxy answers whatever the model server answers (its statuses, bodies and
# streams), which no document of this service can describe; without a model server it is
# always 503 llm_not_configured. tests/api/test_chat_proxy*.py test it against one.
PASSED_THROUGH = frozenset({"POST /v1/chat/completions", "GET /v1/models"})
# A person's import takes an export (JSON Lines, a string to the document): sent as text.
schemathesis.serializer.alias("application/x-ndjson", "text/plain")


def run_every_operation(url: str) -> tuple[int, dict[str, str]]:
    """Every operation's cases against a fresh app on ``url``; (requests, failures)."""
    settings = Settings(
        _env_file=None,
        database_url=url,
        scheduler_enabled=False,
        freeze_startup_heap=False,
        jarvis_admin_keys=[KEY],
    )
    schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(settings))
    sent = 0
    failures: dict[str, str] = {}
    try:
        for result in schema.get_all_operations():
            # An operation the document describes wrongly is itself a failure.
            assert isinstance(result, Ok), result.err()
            operation = result.ok()
            if operation.label in PASSED_THROUGH:
                continue
            for mode, examples in EXAMPLES.items():

                @hypothesis.given(case=operation.as_strategy(generation_mode=mode))
                @hypothesis.settings(
                    max_examples=examples,
                    derandomize=True,
                    database=None,
                    deadline=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck),
                )
                def check(case: schemathesis.Case[Any]) -> None:
                    nonlocal sent
                    sent += 1
                    case.call_and_validate(
                        headers={"Authorization": f"Bearer {KEY}"}, checks=CHECKS
                    )

                try:
                    check()
                except Unsatisfiable:
                    pass  # nothing to break: an operation without any input to violate
                except Exception as failure:  # every failing operation, not just the first
                    failures[f"{operation.label} ({mode})"] = str(failure)[:2000]
    finally:
        shutdown_lifespans()  # the app's lifespan (its database pool) ends here
    return sent, failures


@pytest.mark.parametrize("backend", BACKENDS)
async def test_every_operation_answers_as_its_schema_says(backend: str, tmp_path: Path) -> None:
    async with migrated_copy(backend, tmp_path) as url:
        sent, failures = await asyncio.to_thread(run_every_operation, url)
    assert not failures, "\n\n".join(f"{k}:\n{v}" for k, v in failures.items())
    assert sent >= 100  # every operation was exercised, not skipped
