"""API keys made with ``jarvis-memory keys create``: stored as a hash, bound to users."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, String
from sqlalchemy.orm import Mapped, mapped_column

from models.base import Base, BigIntPK


class ApiKey(Base):
    """One key. The secret is shown once at creation; only its SHA-256 is kept.

    ``user_prefix`` None: the key reaches every user; else only user ids starting with it
    (a tenant). ``admin`` keys may also use ``/admin``, the console and ``/metrics``.
    A revoked key stays listed (``revoked_at``) so the audit trail keeps its name.
    """

    __tablename__ = "api_keys"

    id: Mapped[int] = mapped_column(BigIntPK, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(128))
    # SHA-256 of the secret (hex): the secret has 256 random bits, so no salt or slow
    # hash is needed; a unique index makes the lookup one probe.
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # The secret's first characters, to tell keys apart in a listing.
    hint: Mapped[str] = mapped_column(String(16))
    user_prefix: Mapped[str | None] = mapped_column(String(128), default=None)
    admin: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)
