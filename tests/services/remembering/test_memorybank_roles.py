"""The MemoryBank importer stores each response as the assistant's words: an echo of the
person's query is a memory of its own, and states no fact about them."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select

from models import UserMemory
from services.core.db import Database
from services.core.settings import Settings
from services.remembering.importers.memorybank import (
    already_stored,
    import_memorybank,
    load_memorybank,
)
from services.text.analysis import TextAnalyzer
from tests.conftest import FakeClock

HISTORY = {
    "Jason": {
        "history": {
            "2023-05-01": [
                {"query": "I love hiking", "response": "I love hiking"},
                {"query": "我住在北京", "response": "我搬到上海了"},
            ]
        }
    }
}


async def test_responses_are_the_assistants_words(
    db: Database, settings: Settings, analyzer: TextAnalyzer, clock: FakeClock, tmp_path: Path
) -> None:
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(HISTORY, ensure_ascii=False), encoding="utf-8")
    imported = await import_memorybank(db, (settings, analyzer, clock), path, "mb-")
    assert [(i.messages, i.memories, i.merged) for i in imported] == [(4, 4, 0)]
    async with db.reader() as session:
        rows = (
            await session.execute(
                select(UserMemory.content, UserMemory.role, UserMemory.meta, UserMemory.fact_slot)
                .where(UserMemory.user_id == "mb-01")
                .order_by(UserMemory.created_at)
            )
        ).all()
    assert [(r.content, r.role, r.meta["speaker"], r.fact_slot) for r in rows] == [
        ("I love hiking", "user", "user", None),
        ("I love hiking", "assistant", "assistant", None),
        ("我住在北京", "user", "user", "residence"),
        ("我搬到上海了", "assistant", "assistant", None),
    ]
    # Every message, either role, counts as stored: a second import is refused.
    assert await already_stored(db, load_memorybank(path), "mb-") == 4
