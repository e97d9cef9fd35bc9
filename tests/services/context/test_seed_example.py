"""MUST HOLD: seed 000's 15-message example compressed to 8 by the rule layer alone."""

from __future__ import annotations

import pytest

from services.context.importance.compress import smart_compress
from services.context.importance.message_scorer import MessageImportanceScorer
from tests.services.context.seed_example import SEED_CONVERSATION, SEED_KEPT, TASK


async def test_seed_example_keeps_exactly_the_seeds_eight(
    scorer: MessageImportanceScorer,
) -> None:
    task = scorer.task(TASK)  # default weights, as the seed's example
    scores = await scorer.score(SEED_CONVERSATION, task)
    assert {s.method for s in scores} == {"rule"}
    result = smart_compress(SEED_CONVERSATION, scores, target_count=8, preserve_recent=3)
    assert result.kept == SEED_KEPT
    assert result.dropped == [1, 4, 6, 7, 8, 9, 11]
    assert result.compression_rate == round(8 / 15, 4)


def test_seed_example_earns_it_from_general_signals(scorer: MessageImportanceScorer) -> None:
    scores = scorer.score_rules(SEED_CONVERSATION, scorer.task(TASK))
    rules = {s.index: set(s.rules) for s in scores}
    assert "request" in rules[0]
    assert {"exploration", "file_path"} <= rules[2]
    assert "decision" in rules[3]
    assert {"important_modification", "file_path"} <= rules[5]
    assert "important_modification" in rules[10]
    assert "pleasantry" in rules[14]
    # The user's request is the most relevant message; pleasantries are worth nothing.
    relevance = [s.dimensions["relevance"] for s in scores]
    assert relevance[0] == max(relevance) == 10.0
    assert scores[14].dimensions["relevance"] == 0.0
    # Acknowledgements and narration rank below everything the seed keeps.
    kept_older = [scores[i].total for i in (0, 2, 3, 5, 10)]
    assert max(scores[i].total for i in (1, 4, 6, 14)) < min(kept_older)


def test_seed_example_is_on_the_seeds_scale(scorer: MessageImportanceScorer) -> None:
    scores = scorer.score_rules(SEED_CONVERSATION, scorer.task(TASK))
    # The seed's rules: the core request 9.0, a pleasantry 1.0 (its score plus the newest
    # message's recency bonus of +1.0).
    assert scores[0].rule_kind == "request"
    assert scores[0].total == pytest.approx(9.0, abs=0.2)
    assert scores[14].rule_score == 1.0
    assert scores[14].recency_bonus == 1.0
    assert scores[14].total == 2.0
    # The request, the decision and both edits pass the seed's phase threshold (≥ 8.0),
    # as the seed's own example scores them (9.8, 9.0, 9.5, 8.8); nothing dropped does.
    passing = [s.index for s in scores if s.total >= 8.0]
    assert passing == [0, 3, 5, 10]
