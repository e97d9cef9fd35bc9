"""The one place that turns errors into HTTP responses: {"error": {code, message}}."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from api.schemas.errors import ErrorOut
from services.core.db import is_contention
from services.core.errors import DatabaseBusy, DomainError
from services.core.validation import CONTENT_PATTERN, TEXT_PATTERN, USER_ID_PATTERN

# Seconds a client should wait before retrying a request the database was too busy for.
RETRY_AFTER_SECONDS = 1


def error_response(status: int, code: str, message: str, details: Any = None) -> JSONResponse:
    """A JSON error body in the service's one shape."""
    body: dict[str, Any] = {"code": code, "message": message}
    if details is not None:
        body["details"] = jsonable_encoder(details)
    return JSONResponse(status_code=status, content={"error": body})


async def _domain(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DomainError)
    headers = {"WWW-Authenticate": "Bearer"} if exc.status_code == 401 else None
    response = error_response(exc.status_code, exc.code, exc.message, exc.details)
    if headers:
        response.headers.update(headers)
    if exc.retry_after is not None:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


async def _database(request: Request, exc: Exception) -> JSONResponse:
    """A transaction that lost to another (lock timeout, deadlock) is 503 with
    Retry-After: it was rolled back, so the client may send it again. Any other database
    error is the server's, and goes on to be a 500."""
    if not is_contention(exc):
        raise exc
    busy = DatabaseBusy(
        "the database was busy with other writes to this data; nothing was written, retry"
    )
    response = await _domain(request, busy)
    response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


async def _internal(_request: Request, _exc: Exception) -> JSONResponse:
    """Anything unhandled: a 500 in the service's one error shape rather than Starlette's
    plain text. Starlette still re-raises the exception after sending this, so the server
    logs its traceback; the client is told nothing of it."""
    return error_response(500, "internal_error", "the server failed to answer this request")


# What a pattern means, for the message: "should match pattern '^[^\x00]*$'" says little.
_PATTERNS = {
    TEXT_PATTERN: "must not contain NUL characters",
    CONTENT_PATTERN: "must not be blank or contain NUL characters",
    USER_ID_PATTERN: "must be 1-128 characters of [A-Za-z0-9_.:@-], not . or ..",
}


def _message(error: Any) -> str:
    if error.get("type") == "string_unicode":
        return "must be valid Unicode (a lone surrogate is not)"
    pattern = (error.get("ctx") or {}).get("pattern")
    if error.get("type") == "string_pattern_mismatch" and pattern in _PATTERNS:
        return _PATTERNS[pattern]
    return str(error.get("msg", ""))


async def _validation(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": list(e.get("loc", ())), "msg": _message(e), "type": e.get("type")}
        for e in exc.errors()
    ]
    first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
    where = ".".join(str(p) for p in first["loc"] if p != "body")
    return error_response(422, "invalid_input", f"{where}: {first['msg']}", errors)


_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def _allowed(request: Request) -> str:
    """Every method some route serves at this path: Starlette's Allow names only those of
    the first route that matched the path (POST, where GET is served too)."""
    routes = request.app.router.routes
    return ", ".join(
        method
        for method in _METHODS
        if any(r.matches({**request.scope, "method": method})[0] is Match.FULL for r in routes)
    )


async def _http(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:
        # Starlette's "error parsing the body" (e.g. JSON nested too deep to parse) is bad
        # input like any other malformed body, which FastAPI answers with 422.
        return error_response(422, "invalid_input", str(exc.detail))
    codes = {404: "not_found", 405: "method_not_allowed"}
    response = error_response(
        exc.status_code, codes.get(exc.status_code, "http_error"), str(exc.detail)
    )
    # Starlette's own headers, and on a 405 the Allow that RFC 9110 requires.
    response.headers.update(exc.headers or {})
    if exc.status_code == 405:
        response.headers["Allow"] = _allowed(request)
    return response


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers on ``app``."""
    app.add_exception_handler(DomainError, _domain)
    app.add_exception_handler(DBAPIError, _database)
    app.add_exception_handler(Exception, _internal)
    app.add_exception_handler(RequestValidationError, _validation)
    app.add_exception_handler(StarletteHTTPException, _http)


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI entries documenting the error shape for these statuses."""
    return {status: {"model": ErrorOut} for status in statuses}
