"""MemoryBank / SiliconFriend histories (Zhong et al. 2023) as memories, for a demo.

The file maps a user name to ``{"history": {"YYYY-MM-DD": [{"query", "response"}, ...]}}``
(other keys ignored). Each user becomes a user of the service (``<prefix><NN>``, in file
order, because names such as 「张曼婷」 are not valid user ids); each message, the user's
query and the assistant's response alike, becomes one memory with source ``memorybank``,
the speaker's ``role`` (``user`` for a query, ``assistant`` for a response: a response
never merges into the person's words nor states a fact about them), metadata
``{"user_name", "date", "turn", "speaker": "user" | "assistant"}`` and a
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
from services.core.errors import DomainError, InvalidInput
from services.core.progress import NO_PROGRESS, Progress
from services.core.settings import Settings
from services.core.validation import MAX_BATCH_CHARS, MAX_BATCH_ITEMS, check_user_id
from services.remembering.memory_service import MemoryService, NewMemory
from services.repositories.memories import MemoryRepository
from services.text.analysis import TextAnalyzer
from services.text.tokenizer import content_hash

SOURCE = "memorybank"


@dataclass(frozen=True)
class ImportedUser:
    """One imported history."""

    name: str
    user_id: str
    messages: int
    memories: int  # fewer than messages when a message repeats an earlier one (merged)
    merged: int = 0  # messages that merged into a memory (stored before, or earlier here)


class AlreadyImported(DomainError):
    """Messages of the file are stored already: importing again would count each one as a
    new mention (raising frequency and importance), so it takes an explicit ``again``."""

    code = "already_imported"
    status_code = 409

    def __init__(self, stored: int, total: int) -> None:
        self.stored, self.total = stored, total
        super().__init__(
            f"{stored} of the file's {total} messages are already stored for these users "
            "(imported before?); importing again would merge them, counting each as a new "
            "mention: pass --again to do so"
        )


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
            items.append(
                NewMemory(
                    content=text,
                    source=SOURCE,
                    metadata=meta,
                    created_at=created,
                    conversation_id=f"{SOURCE}/{name}/{date}",  # one dialogue a day
                    role=speaker,
                )
            )
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


def _user_ids(users: dict[str, list[NewMemory]], prefix: str) -> list[str]:
    return [check_user_id(f"{prefix}{number:02d}") for number in range(1, len(users) + 1)]


async def already_stored(db: Database, users: dict[str, list[NewMemory]], prefix: str) -> int:
    """How many of the messages are stored already, word for word (after normalisation),
    for the user ids they would be imported as."""
    found = 0
    for user_id, items in zip(_user_ids(users, prefix), users.values(), strict=True):
        keys = [(content_hash(item.content), item.role) for item in items]
        async with db.reader() as session:
            stored = await MemoryRepository(session).get_by_hashes(
                user_id, sorted({h for h, _ in keys})
            )
        found += sum(1 for k in keys if k in stored)
    return found


async def import_memorybank(
    db: Database,
    services: tuple[Settings, TextAnalyzer, Clock],
    path: Path,
    user_prefix: str = "memorybank-",
    *,
    again: bool = False,
    progress: Progress = NO_PROGRESS,
) -> list[ImportedUser]:
    """Import every user of the file; each batch of messages is one unit of work.

    A file whose messages are already stored (the same file imported twice) is refused
    with :class:`AlreadyImported` unless ``again``: a repeat counts as a new mention of
    the memory it merges into, which a second import of the same history is not.
    """
    settings, analyzer, clock = services
    users = load_memorybank(path)
    total = sum(len(items) for items in users.values())
    if not again and (stored := await already_stored(db, users, user_prefix)):
        raise AlreadyImported(stored, total)
    progress.start(total)
    imported = []
    for user_id, (name, items) in zip(_user_ids(users, user_prefix), users.items(), strict=True):
        ids: set[int] = set()
        merged = 0
        for batch in _batches(items):
            async with db.unit_of_work() as session:
                stored_batch = await MemoryService(session, settings, analyzer, clock).add_many(
                    user_id, batch
                )
            ids.update(s.memory.id for s in stored_batch)
            merged += sum(1 for s in stored_batch if s.merged)
            progress.advance(len(batch))
        imported.append(ImportedUser(name, user_id, len(items), len(ids), merged))
    return imported
