"""``jarvis-memory import memorybank`` and ``jarvis-memory reindex``, end to end."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update

from api.cli.main import main
from bench.consistency import inconsistencies
from models import MemoryTerm, MemoryTermStat, MemoryUser
from services.core.db import Database
from services.core.errors import InvalidInput
from services.core.settings import Settings
from services.remembering.importers.memorybank import load_memorybank
from services.remembering.memory_service import MemoryChanges, MemoryService
from services.remembering.reindex import ReindexResult, _rewrite, reindex
from services.repositories.reindex import ReindexRepository
from services.repositories.search import SearchRepository
from services.text.analysis import TextAnalyzer
from tests.conftest import BACKENDS, FakeClock
from tests.db_backends import fresh_database
from tests.factories import Services

# The shape of the MemoryBank file, written by the test (the dataset is never copied here).
HISTORY: dict[str, Any] = {
    "张曼婷": {
        "name": "张曼婷",
        "summary": {},
        "history": {
            "2023-04-28": [
                {"query": "今天我去了绿禾公园散步", "response": "你看到了什么有趣的景色？"},
                {"query": "一只超级可爱的松鼠！", "response": ""},
            ],
            "2023-04-27": [
                {"query": "我很喜欢绘画、弹钢琴和品茶", "response": "有很多关于绘画的书可以推荐"}
            ],
        },
    },
    " Jason ": {
        "history": {"2023-05-01": [{"query": "I love hiking", "response": "Nice!"}]},
    },
}


async def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, Any]:
    code = await asyncio.to_thread(main, [*argv, *(["--json"] if argv[0] != "migrate" else [])])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


@pytest.mark.parametrize("backend", BACKENDS)
async def test_import_memorybank_then_recall(
    backend: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "memory_bank_cn.json"
    path.write_text(json.dumps(HISTORY, ensure_ascii=False), encoding="utf-8")
    async with fresh_database(backend, tmp_path) as url:
        monkeypatch.setenv("DATABASE_URL", url)
        assert (await _run(capsys, "migrate"))[0] == 0
        code, imported = await _run(capsys, "import", "memorybank", str(path))
        assert code == 0
        assert imported == [
            {
                "name": "张曼婷",
                "user_id": "memorybank-01",
                "messages": 5,
                "memories": 5,
                "merged": 0,
            },
            {
                "name": "Jason",
                "user_id": "memorybank-02",
                "messages": 2,
                "memories": 2,
                "merged": 0,
            },
        ]
        code, hits = await _run(capsys, "recall", "memorybank-01", "松鼠", "--no-track")
        memory = hits[0]["memory"]
        assert memory["content"] == "一只超级可爱的松鼠！"
        assert memory["source"] == "memorybank"
        assert memory["metadata"] == {
            "user_name": "张曼婷",
            "date": "2023-04-28",
            "turn": 2,
            "speaker": "user",
        }
        assert memory["created_at"] == "2023-04-28T00:02:00Z"
        assert memory["role"] == "user"
        # At the default floor the answer alone: the day's earlier message is context with
        # no evidence of its own, below the floor.
        assert [h["memory"]["content"] for h in hits] == ["一只超级可爱的松鼠！"]
        # With no floor, the day's earlier messages are its session and come along
        # (continuity), the person's own only: recall never returns the assistant's words.
        code, hits = await _run(
            capsys, "recall", "memorybank-01", "松鼠", "--no-track", "--min-confidence", "0"
        )
        contents = [h["memory"]["content"] for h in hits]
        assert contents[0] == "一只超级可爱的松鼠！"
        assert "今天我去了绿禾公园散步" in contents
        assert {h["memory"]["role"] for h in hits} == {"user"}
        assert "你看到了什么有趣的景色？" not in contents  # the assistant's
        assert "有很多关于绘画的书可以推荐" not in contents  # another day
        # The response was imported as the assistant's: even its own words do not find it.
        code, said = await _run(
            capsys, "recall", "memorybank-01", "景色", "--no-track", "--min-confidence", "0"
        )
        assert (code, said) == (0, [])
        code, hits = await _run(capsys, "recall", "memorybank-02", "hiking", "--no-track")
        assert hits[0]["memory"]["content"] == "I love hiking"
        code, again = await _run(capsys, "reindex", "--user", "memorybank-01")
        assert (code, again) == (0, {"users": 1, "memories": 5})
        code, everyone = await _run(capsys, "reindex")
        assert (code, everyone) == (0, {"users": 2, "memories": 7})
        code, _ = await _run(capsys, "import", "memorybank", str(tmp_path / "missing.json"))
        assert code == 2

        # The same file again: refused, nothing written, until --again says so.
        code = await asyncio.to_thread(main, ["import", "memorybank", str(path)])
        refused = capsys.readouterr()
        assert (code, refused.out) == (2, "")
        assert "already_imported: 7 of the file's 7 messages" in refused.err
        code, hits = await _run(capsys, "recall", "memorybank-02", "hiking", "--no-track")
        assert hits[0]["memory"]["mention_count"] == 1
        code, imported = await _run(capsys, "import", "memorybank", str(path), "--again")
        assert code == 0
        assert [(u["messages"], u["memories"], u["merged"]) for u in imported] == [
            (5, 5, 5),
            (2, 2, 2),
        ]
        code, hits = await _run(capsys, "recall", "memorybank-02", "hiking", "--no-track")
        assert hits[0]["memory"]["mention_count"] == 2


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[]", "non-empty object"),
        ("{not json", "cannot read"),
        ('{"a": {"summary": {}}}', "has no history"),
        ('{"a": {"history": []}}', "object of dates"),
        ('{"a": {"history": {"May 1": []}}}', "YYYY-MM-DD"),
        ('{"a": {"history": {"2023-05-01": {}}}}', "list of query/response pairs"),
    ],
)
def test_malformed_files_are_refused(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InvalidInput, match=message):
        load_memorybank(path)


async def test_reindex_rebuilds_postings_and_lengths(
    services: Services, db: Database, analyzer: TextAnalyzer
) -> None:
    kept = await services.add("u", "I drink green tea every morning")
    other = await services.add("v", "Green tea for Vera")
    # An index written by an older analyzer: postings gone, lengths wrong.
    async with db.unit_of_work() as session:
        await SearchRepository(session).unindex("u", kept.id)
        await ReindexRepository(session).set_doc_lengths("u", {kept.id: 99})
        await ReindexRepository(session).refresh_total_length("u")
    assert await services.recall("u", "green tea") == []

    assert await reindex(db, analyzer, "u") == ReindexResult(users=1, memories=1)
    kept = await services.get("u", kept.id)
    assert [h.memory.id for h in await services.recall("u", "green tea")] == [kept.id]
    async with db.unit_of_work() as session:
        terms = set(
            (
                await session.execute(
                    select(MemoryTerm.term).where(
                        MemoryTerm.user_id == "u", MemoryTerm.memory_id == kept.id
                    )
                )
            ).scalars()
        )
        total = await session.get(MemoryUser, "u", populate_existing=True)
    assert terms == set(analyzer.terms(kept.content))
    assert total is not None
    assert total.total_doc_length == kept.doc_length == sum(analyzer.terms(kept.content).values())
    assert [h.memory.id for h in await services.recall("v", "green tea")] == [other.id]


async def test_reindex_leaves_document_frequencies_as_the_postings_count_them(
    services: Services, db: Database, analyzer: TextAnalyzer
) -> None:
    # Each batch dropped its postings without taking them out of the frequencies and
    # then counted them in again: every reindex added the user's terms' df once more.
    await services.add("u", "I drink green tea every morning")
    await services.add("u", "Green tea is my favourite drink")

    async def frequencies() -> tuple[dict[str, int], dict[str, int]]:
        async with db.unit_of_work() as session:
            stats = {
                str(term): int(df)
                for term, df in await session.execute(
                    select(MemoryTermStat.term, MemoryTermStat.df).where(
                        MemoryTermStat.user_id == "u", MemoryTermStat.df != 0
                    )
                )
            }
            postings = {
                str(term): int(n)
                for term, n in await session.execute(
                    select(MemoryTerm.term, func.count())
                    .where(MemoryTerm.user_id == "u")
                    .group_by(MemoryTerm.term)
                )
            }
        return stats, postings

    before, postings = await frequencies()
    assert before == postings
    assert before["green"] == before["tea"] == 2
    for _ in range(2):
        assert await reindex(db, analyzer, "u", batch_size=1) == ReindexResult(users=1, memories=2)
        assert await frequencies() == (before, postings)
    # Counts an earlier reindex inflated are repaired by the next one.
    async with db.unit_of_work() as session:
        await session.execute(
            update(MemoryTermStat).where(MemoryTermStat.user_id == "u").values(df=7)
        )
    await reindex(db, analyzer, "u")
    assert await frequencies() == (before, postings)


async def test_a_batch_changed_after_its_analysis_is_written_as_it_stands(
    services: Services, db: Database, analyzer: TextAnalyzer, settings: Settings, clock: FakeClock
) -> None:
    # A batch is analysed before the user's row is taken (writes do not wait for the
    # analysis); an edit or a delete that lands meanwhile is read again under the row.
    memories = [
        await services.add("u", text)
        for text in ("I drink green tea every morning", "I walk the dog at noon", "Fix the bike")
    ]
    batch = [(m.id, m.content) for m in memories]
    terms = [analyzer.terms(content) for _, content in batch]
    kept, edited, gone = (m.id for m in memories)
    async with db.unit_of_work() as session:
        service = MemoryService(session, settings, analyzer, clock)
        await service.update("u", edited, MemoryChanges(content="I walk the cat at dusk"))
        await service.delete("u", gone)
    async with db.unit_of_work() as session:
        assert await _rewrite(session, analyzer, "u", batch, terms) == 2
    async with db.unit_of_work() as session:
        postings = select(MemoryTerm.term).where(
            MemoryTerm.user_id == "u", MemoryTerm.memory_id == edited
        )
        assert set((await session.execute(postings)).scalars()) == set(
            analyzer.terms("I walk the cat at dusk")
        )
        assert await inconsistencies(session, "u", settings) == {}
    assert (await services.recall("u", "green tea"))[0].memory.id == kept
