"""Logs as text or as one JSON object per line, each with its request's id.

Libraries, each the well-kept standard of its job: ``asgi-correlation-id`` reads
``X-Request-ID`` (or makes one), keeps it in a context variable for the request's
duration and returns it on the response; ``python-json-logger`` formats stdlib logging
records as JSON, so every logger of the service and of its libraries (uvicorn,
SQLAlchemy, APScheduler) comes out in the same shape without a logging API of its own.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Any
from uuid import uuid4

from asgi_correlation_id import CorrelationIdFilter, CorrelationIdMiddleware
from fastapi import FastAPI

REQUEST_ID_HEADER = "X-Request-ID"
# What a caller's id may look like: a UUID, a trace id, an nginx $request_id, a
# "client-42"; anything else (a newline, a 4 KB header) is replaced by a generated one,
# so an id cannot forge log lines.
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")

TEXT_FORMAT = "%(levelname)s %(name)s: %(message)s"
# The standard fields of each JSON line; python-json-logger adds a record's `extra`.
JSON_FIELDS = "%(asctime)s %(levelname)s %(name)s %(message)s %(correlation_id)s"
JSON_RENAMES = {
    "asctime": "time",
    "levelname": "level",
    "name": "logger",
    "correlation_id": "request_id",
}


def valid_request_id(value: str) -> bool:
    """Whether a caller's ``X-Request-ID`` is kept as the request's id."""
    return _REQUEST_ID.fullmatch(value) is not None


def install_request_id(app: FastAPI) -> None:
    """Every request gets an id (the caller's X-Request-ID, else a new one), returned in
    the response's ``X-Request-ID`` and attached to every record logged meanwhile."""
    app.add_middleware(
        CorrelationIdMiddleware,
        header_name=REQUEST_ID_HEADER,
        validator=valid_request_id,
        generator=lambda: uuid4().hex,
    )


def json_formatter() -> logging.Formatter:
    """A formatter of one JSON object per record, ISO 8601 times in UTC."""
    from pythonjsonlogger.core import RESERVED_ATTRS
    from pythonjsonlogger.json import JsonFormatter

    formatter = JsonFormatter(
        JSON_FIELDS,
        rename_fields=JSON_RENAMES,
        timestamp=False,
        # uvicorn's ANSI-coloured copy of its message is for terminals, not for JSON.
        reserved_attrs=[*RESERVED_ATTRS, "color_message"],
        json_ensure_ascii=False,
    )
    formatter.converter = time.gmtime
    formatter.default_time_format = "%Y-%m-%dT%H:%M:%S"
    formatter.default_msec_format = "%s.%03dZ"
    return formatter


def log_config(log_format: str, level: str = "INFO") -> dict[str, Any]:
    """A ``logging.config.dictConfig`` for the CLI and uvicorn alike: the root logger and
    uvicorn's own write through one handler in ``log_format`` (``text`` or ``json``)."""
    formatter: dict[str, Any] = (
        {"()": json_formatter} if log_format == "json" else {"format": TEXT_FORMAT}
    )
    handler = {
        "class": "logging.StreamHandler",
        "formatter": "main",
        "filters": ["request_id"],
        "stream": "ext://sys.stderr",
    }
    inherit = {"handlers": [], "propagate": True}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {"request_id": {"()": CorrelationIdFilter}},
        "formatters": {"main": formatter},
        "handlers": {"main": handler},
        "root": {"handlers": ["main"], "level": level},
        "loggers": {
            "uvicorn": {**inherit, "level": level},
            "uvicorn.error": inherit,
            # LOG_FORMAT=json: api.access (api/observability/metrics.py) logs each request instead.
            "uvicorn.access": {**inherit, "level": "WARNING" if log_format == "json" else level},
        },
    }


def configure_logging(log_format: str) -> None:
    """Apply :func:`log_config` to this process."""
    import logging.config

    logging.config.dictConfig(log_config(log_format))
