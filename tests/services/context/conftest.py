"""A scorer on the session's analyzer, rules only."""

from __future__ import annotations

import pytest

from services.context.message_scorer import MessageImportanceScorer
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer


@pytest.fixture
def scorer(analyzer: TextAnalyzer, settings: Settings) -> MessageImportanceScorer:
    return MessageImportanceScorer(analyzer, settings)
