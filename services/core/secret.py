"""The deployment's hash secret: the key of every hash kept to recognise a text again.

Message scores remember a message by a hash of its text, so that an unchanged message is
not scored again (services/context/importance/service.py). A bare SHA-256 of a short
text is no protection: "my PIN is 4821" is found again by hashing the ten thousand
candidates. Those hashes are HMAC-SHA-256 under this secret instead, which
never leaves the deployment.

Where it comes from, first match wins:

1. ``JARVIS_HASH_SECRET`` (at least 16 characters). Set it, the same everywhere, when
   several hosts share one PostgreSQL database.
2. A file beside the SQLite database (``<database>.hash-secret``), or for PostgreSQL
   ``hash-secret`` in the user's data directory beside the default SQLite file; made with
   32 random bytes, readable by its owner only, on first use and read back afterwards,
   so the hashes stay stable across restarts. Two processes starting at once agree:
   the file is created exclusively and the loser reads the winner's.
3. An in-memory SQLite database (tests, scratch runs) keeps nothing across a restart
   anyway: a random secret for the life of the process.

A lost or changed secret costs nothing but work: stored message scores no longer
match their messages, so those messages are scored again.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import threading
import time
from pathlib import Path

from sqlalchemy.engine import make_url

from services.core.settings import Settings, default_sqlite_path

SECRET_BYTES = 32
_lock = threading.Lock()
_resolved: dict[str, bytes] = {}


def secret_file(database_url: str) -> Path | None:
    """Where the generated secret of this database is kept (None: in memory only)."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        if not url.database or url.database == ":memory:" or url.database.startswith("file:"):
            return None
        database = Path(url.database)
        return database.with_name(database.name + ".hash-secret")
    return default_sqlite_path().with_name("hash-secret")


def _read_or_create(path: Path) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        text = ""
        for _ in range(50):  # another process may be writing it this very moment
            text = path.read_text(encoding="ascii").strip()
            if text:
                break
            time.sleep(0.01)
    else:
        text = secrets.token_hex(SECRET_BYTES)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(text + "\n")
    if len(text) < 32:
        raise RuntimeError(f"{path} holds no hash secret; delete it to make a new one")
    return text.encode("ascii")


def process_secret() -> bytes:
    """A random secret for the life of this process (nothing to keep it for)."""
    return _resolve(None)


def hash_secret(settings: Settings) -> bytes:
    """The deployment's secret (see the module docstring), resolved once per process."""
    if settings.jarvis_hash_secret:
        return settings.jarvis_hash_secret.encode("utf-8")
    return _resolve(secret_file(settings.database_url))


def _resolve(path: Path | None) -> bytes:
    key = str(path) if path is not None else ""
    with _lock:
        found = _resolved.get(key)
        if found is None:
            found = _read_or_create(path) if path is not None else secrets.token_bytes(32)
            _resolved[key] = found
        return found


def keyed_hash(secret: bytes, text: str) -> str:
    """HMAC-SHA-256 of ``text`` under ``secret``, as 64 hex digits."""
    return hmac.new(secret, text.encode("utf-8"), hashlib.sha256).hexdigest()
