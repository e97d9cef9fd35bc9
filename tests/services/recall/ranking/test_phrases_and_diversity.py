"""The phrase signal and MMR, on plain text."""

from __future__ import annotations

import random

import pytest

from services.recall.ranking.diversity import mmr_order
from services.recall.ranking.phrases import fold, phrase_score, query_phrases, text_features
from services.text import get_tokenizer
from services.text.analysis import jaccard


def score(query: str, content: str) -> float:
    return phrase_score(query_phrases(query, get_tokenizer()), text_features(content))


def test_adjacent_words_count_after_stemming() -> None:
    assert score("green tea", "I drink green teas daily") == 1.0
    assert score("green tea", "tea that is green") == 0.0
    # Two pairs, "sister lives" and "lives lisbon"; only the first is said.
    assert score("sister lives Lisbon", "my sister lives in Porto, near Lisbon") == 0.5
    assert score("tea", "green tea") == 0.0  # one word: no phrase to match


def test_quoted_phrases_match_whole_words() -> None:
    # The quoted phrase weighs 2; of the word pairs (song, four) and (four, season), one
    # is said: (2 + 1) / (2 + 2).
    assert score('the song "The Four Seasons"', "She played The Four Seasons by Vivaldi") == 0.75
    assert score('"The Four Seasons"', "the four seasons") == 1.0
    assert score('"art"', "a party") == 0.0
    assert score("「小王子」", "我推荐《小王子》") == 1.0


def test_chinese_three_and_four_grams() -> None:
    # 项目经理 → 3-grams 项目经, 目经理 and the 4-gram itself: all found.
    assert score("项目经理", "新来的项目经理人很好") == 1.0
    assert score("项目经理", "这个项目由经理负责") == 0.0
    assert score("项目经理", "项目经费") == pytest.approx(1 / 3)  # 项目经 only


def test_fold() -> None:
    assert fold("Hello, World!  你好，世界") == " hello world 你好 世界 "


def test_mmr_prefers_variety_and_keeps_order_at_lambda_one() -> None:
    terms = {
        "a": frozenset({"tea", "green", "morning"}),
        "b": frozenset({"tea", "green", "morning"}),
        "c": frozenset({"coffee", "lunch"}),
    }
    scores = {"a": 1.0, "b": 0.95, "c": 0.8}
    ranked = ["a", "b", "c"]
    plain = mmr_order(ranked, scores, terms.__getitem__, lam=1.0, pool=10, limit=3)
    assert plain == [("a", 0.0), ("b", 0.0), ("c", 0.0)]
    varied = mmr_order(ranked, scores, terms.__getitem__, lam=0.7, pool=10, limit=3)
    assert [k for k, _ in varied] == ["a", "c", "b"]
    assert varied[2][1] == 1.0  # b repeats a word for word
    # Outside the pool the order is the score order.
    tail = mmr_order(ranked, scores, terms.__getitem__, lam=0.7, pool=1, limit=3)
    assert [k for k, _ in tail] == ["a", "b", "c"]
    assert jaccard(frozenset(), frozenset()) == 0.0


def _plain_greedy_mmr(
    ranked: list[int], scores: dict[int, float], terms: dict[int, frozenset[str]], lam: float
) -> list[tuple[int, float]]:
    """MMR as seed 004 §4.5 states it: every step rescans every remaining candidate."""
    head, best = list(ranked), max(scores[ranked[0]], 1e-9)
    closest = dict.fromkeys(head, 0.0)
    chosen = []
    while head:
        pick = max(head, key=lambda k: lam * scores[k] / best - (1.0 - lam) * closest[k])
        head.remove(pick)
        chosen.append((pick, closest[pick]))
        for key in head:
            closest[key] = max(closest[key], jaccard(terms[key], terms[pick]))
    return chosen


@pytest.mark.parametrize("seed", range(40))
def test_lazy_mmr_picks_what_the_plain_greedy_loop_picks(seed: int) -> None:
    rng = random.Random(seed)
    words = [f"w{i}" for i in range(12)]
    size = rng.randint(2, 40)
    terms = {k: frozenset(rng.sample(words, rng.randint(0, 5))) for k in range(size)}
    # Coarse scores make ties, which must go to the better-ranked candidate.
    scores = {k: rng.choice([0.2, 0.5, 0.5, 0.8, 1.0]) for k in range(size)}
    ranked = sorted(scores, key=lambda k: (-scores[k], -k))
    lam = rng.choice([0.3, 0.5, 0.7, 0.9])
    lazy = mmr_order(ranked, scores, terms.__getitem__, lam=lam, pool=size, limit=size)
    assert lazy == _plain_greedy_mmr(ranked, scores, terms, lam)
    limited = mmr_order(ranked, scores, terms.__getitem__, lam=lam, pool=size, limit=3)
    assert limited == lazy[:3]


def test_mmr_terms_are_stems_and_han_bigrams_built_from_the_cached_features() -> None:
    features = text_features("Hiking trips with Anna, 周末去爬山")
    assert features.stems == ("hike", "trip", "anna")
    assert features.terms() == {"hike", "trip", "anna", "周末", "末去", "去爬", "爬山"}
