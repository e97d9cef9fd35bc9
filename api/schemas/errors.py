"""The one error shape every failed request answers with."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


class ErrorBody(BaseModel):
    """The machine code and a human message."""

    code: str
    message: str
    details: Any = None


class ErrorOut(BaseModel):
    """Every error response has this shape."""

    error: ErrorBody
