"""MemoryBank / SiliconFriend histories (Zhong et al. 2023) as memories, for a demo.

The file maps a user name to ``{"history": {"YYYY-MM-DD": [{"query", "response"}, ...]}}``
(other keys ignored). Each user becomes a user of the service (``<prefix><NN>``, in file
order, because names such as 「张曼婷」 are not valid user ids); each message, the user's
query and the assistant's response alike, becomes one memory with source ``memorybank``,
metadata ``{"user_name", "date", "turn", "speaker": "user" | "assistant"}`` and a
``created_at`` of that day at midnight UTC plus one minute per message, so a day's
dialog keeps its order and forms one session (continuity) while days stay apart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from services.core.clock import Clock
from services.core.db import Database
from services.core.errors import InvalidInput
from services.core.settings import Settings
from services.core.validation import MAX_BATCH_CHARS, MAX_BATCH_ITEMS, check_user_id
from services.remembering.memory_service import MemoryService, NewMemory
from services.text.analysis import TextAnalyzer

SOURCE = "memorybank"


@dataclass(frozen=True)
class ImportedUser:
    """One imported history."""

    name: str
    user_id: str
    messages: int
    memories: int  # fewer than messages when a message repeats an earlier one (merged)


def _day(value: str, name: str) -> datetime:
    try:
        return datetime.strptime(value, "%Y-%m-%d").replace(tzinfo=UTC)
    except ValueError as exc:
        raise InvalidInput(f"user {name!r}: {value!r} is not a YYYY-MM-DD date") from exc


def _messages(name: str, history: Any) -> list[NewMemory]:
    """Every non-empty message of one user's history, oldest first."""
    if not isinstance(history, dict):
        raise InvalidInput(f"user {name!r}: history must be an object of dates")
    items: list[NewMemory] = []
    for date in sorted(history):
        day, turns = _day(date, name), history[date]
        if not isinstance(turns, list):
            raise InvalidInput(f"user {name!r}, {date}: expected a list of query/response pairs")
        said = [
            (speaker, str(turn.get(key) or "").strip())
            for turn in turns
            if isinstance(turn, dict)
            for speaker, key in (("user", "query"), ("assistant", "response"))
        ]
        for minute, (speaker, text) in enumerate((s, t) for s, t in said if t):
            meta = {"user_name": name, "date": date, "turn": minute, "speaker": speaker}
            created = day + timedelta(minutes=minute)
            items.append(NewMemory(content=text, source=SOURCE, metadata=meta, created_at=created))
    return items


def load_memorybank(path: Path) -> dict[str, list[NewMemory]]:
    """User name → messages as memories; a clear error for a file of another shape."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"cannot read a MemoryBank JSON file at {path}: {exc}") from exc
    if not isinstance(data, dict) or not data:
        raise InvalidInput("a MemoryBank file is a non-empty object of user name → history")
    users: dict[str, list[NewMemory]] = {}
    for name, record in data.items():
        if not isinstance(record, dict) or "history" not in record:
            raise InvalidInput(f"user {name!r} has no history")
        users[name.strip()] = _messages(name.strip(), record["history"])
    return users


def _batches(items: list[NewMemory]) -> list[list[NewMemory]]:
    """Consecutive batches within MAX_BATCH_ITEMS items and MAX_BATCH_CHARS characters."""
    batches: list[list[NewMemory]] = [[]]
    chars = 0
    for item in items:
        full = len(batches[-1]) == MAX_BATCH_ITEMS or chars + len(item.content) > MAX_BATCH_CHARS
        if batches[-1] and full:
            batches.append([])
            chars = 0
        batches[-1].append(item)
        chars += len(item.content)
    return [b for b in batches if b]


async def import_memorybank(
    db: Database,
    services: tuple[Settings, TextAnalyzer, Clock],
    path: Path,
    user_prefix: str = "memorybank-",
) -> list[ImportedUser]:
    """Import every user of the file; each batch of messages is one unit of work."""
    settings, analyzer, clock = services
    users = load_memorybank(path)
    imported = []
    for number, (name, items) in enumerate(users.items(), start=1):
        user_id = check_user_id(f"{user_prefix}{number:02d}")
        ids: set[int] = set()
        for batch in _batches(items):
            async with db.unit_of_work() as session:
                stored = await MemoryService(session, settings, analyzer, clock).add_many(
                    user_id, batch
                )
            ids.update(s.memory.id for s in stored)
        imported.append(ImportedUser(name, user_id, len(items), len(ids)))
    return imported
