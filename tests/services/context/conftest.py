"""A scorer on the session's analyzer, rules only."""

from __future__ import annotations

import pytest

from services.analysis import TextAnalyzer
from services.context.scorer import MessageImportanceScorer
from services.settings import Settings


@pytest.fixture
def scorer(analyzer: TextAnalyzer, settings: Settings) -> MessageImportanceScorer:
    return MessageImportanceScorer(analyzer, settings)
