"""No route's dependency runs in FastAPI's thread pool (api/deps.py, get_state).

FastAPI calls a plain ``def`` dependency through its thread pool: a thread hop per
dependency per request, for functions that never block. Every dependency of every
route is therefore a coroutine or an async generator (or an async callable object, as
the bearer-key reader is).
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Iterator
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, APIRouter

import api.routes
from api.auth import require_service_key


def _routes() -> list[APIRoute]:
    """Every route of every router module (a route's dependant holds its router's own
    dependencies too; the key check app.py adds to /v1 is checked on its own)."""
    found: list[APIRoute] = []
    for module in pkgutil.iter_modules(api.routes.__path__):
        router = getattr(importlib.import_module(f"api.routes.{module.name}"), "router", None)
        if isinstance(router, APIRouter):
            found += [r for r in router.routes if isinstance(r, APIRoute)]
    return found


def _calls(dependant: Dependant) -> Iterator[Any]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


def _async(call: Any) -> bool:
    return (
        inspect.iscoroutinefunction(call)
        or inspect.isasyncgenfunction(call)
        # An instance whose __call__ is async (fastapi.security's HTTPBearer).
        or inspect.iscoroutinefunction(type(call).__call__)
    )


def test_every_dependency_of_every_route_is_async() -> None:
    routes = _routes()
    calls = [require_service_key, *(call for route in routes for call in _calls(route.dependant))]
    assert len(routes) > 20  # the walk reached them
    assert len(calls) > len(routes)
    blocking = sorted(
        {getattr(call, "__qualname__", repr(call)) for call in calls if not _async(call)}
    )
    assert blocking == []
