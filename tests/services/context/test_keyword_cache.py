"""The frontend resends the whole conversation every turn: each message's keywords are
extracted once per process (the shared scorer), not once per request."""

from __future__ import annotations

import pytest

from services.context.assembly.service import ContextRequest, ContextService
from services.context.importance.message_scorer import MessageImportanceScorer
from services.context.shared.messages import ChatMessage
from services.core.db import Database
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer
from tests.conftest import FakeClock

BUDGET = 600


def history() -> list[ChatMessage]:
    out = [ChatMessage("system", "You are Jarvis. 回答要简洁。")]
    for i in range(60):
        said = f"第 {i} 轮：我们讨论了数据库迁移和端口 {6000 + i} 的配置问题。"
        out.append(ChatMessage("user", said))
        out.append(ChatMessage("assistant", f"Step {i}: the deploy config moved port {6000 + i}."))
    return out


async def test_history_keywords_are_extracted_once_across_requests(
    db: Database,
    settings: Settings,
    analyzer: TextAnalyzer,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    extracted: list[str] = []
    real = analyzer.topic_extractor.extract

    def counting(text: str) -> list[str]:
        extracted.append(text)
        return real(text)

    monkeypatch.setattr(analyzer.topic_extractor, "extract", counting)
    # Cards off: a card is stored as a memory, and storing analyses its text afresh.
    settings = settings.model_copy(update={"context_memory_cards": False})
    scorer = MessageImportanceScorer(analyzer, settings)  # built once, as the app does
    turns = history()

    async def assemble(question: str) -> list[ChatMessage]:
        async with db.unit_of_work() as session:
            service = ContextService(session, settings, analyzer, scorer, clock)
            request = ContextRequest([*turns, ChatMessage("user", question)], BUDGET)
            return (await service.assemble("alice", request)).messages

    first = await assemble("端口是多少？")
    first_texts = set(extracted)
    # The history was compressed to keywords, each text extracted once.
    assert first_texts
    assert len(extracted) == len(first_texts)
    second = await assemble("迁移做完了吗？")
    assert not first_texts & set(extracted[len(first_texts) :])
    # Same history, same compressed history: only the last message differs.
    assert first[:-1] == second[:-1]
    assert scorer.keywords("端口 6001 的配置") == real("端口 6001 的配置")
