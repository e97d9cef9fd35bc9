"""A scorer on the session's analyzer, rules only; the loopback LLM that writes summaries."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from services.context.importance.message_scorer import MessageImportanceScorer
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer
from tests.services.context.llm_server import SummaryLlm, serve


@pytest.fixture
def scorer(analyzer: TextAnalyzer, settings: Settings) -> MessageImportanceScorer:
    return MessageImportanceScorer(analyzer, settings)


@pytest.fixture
def summary_llm() -> Iterator[SummaryLlm]:
    with serve(SummaryLlm()) as server:
        assert isinstance(server, SummaryLlm)
        yield server
