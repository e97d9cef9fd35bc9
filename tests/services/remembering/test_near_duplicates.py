"""The prefix filter finds every near-duplicate, whichever order it probes in."""

from __future__ import annotations

import random
from difflib import SequenceMatcher

from services.remembering.ingest import decide
from services.remembering.near_duplicates import (
    ALIGNMENT_PAD,
    NEAR_DUPLICATE_CANDIDATES,
    Alignment,
    TermSetIndex,
    probe,
)
from services.text.analysis import TextAnalyzer, jaccard

VOCABULARY = [f"w{i}" for i in range(60)] + [f"~b{i}" for i in range(40)] + ["^c", "^d"]


def _variant(rng: random.Random, base: set[str]) -> set[str]:
    """A copy of ``base`` with a few terms dropped and a few added."""
    kept = {t for t in base if rng.random() > 0.08}
    return kept | {rng.choice(VOCABULARY) for _ in range(rng.randint(0, 2))}


def test_every_set_above_the_threshold_is_a_candidate() -> None:
    rng = random.Random(5)
    threshold = 0.85
    sets = []
    for _ in range(150):
        base = set(rng.sample(VOCABULARY, rng.randint(1, 40)))
        sets += [base, _variant(rng, base), _variant(rng, base)]
    frequencies = {t: rng.randint(0, 50) for t in VOCABULARY}
    index = TermSetIndex(threshold)
    for key, terms in enumerate(sets):
        index.add(key, terms)
    near_pairs = 0
    for terms in sets:
        candidates = set(index.candidates(terms))
        probe_terms, need = probe(terms, threshold, frequencies)
        for key, other in enumerate(sets):
            if jaccard(terms, other) >= threshold:
                near_pairs += 1
                assert key in candidates
                assert len(set(probe_terms) & other) >= need
    assert near_pairs > len(sets)  # variants were found, not only each set itself


def test_probe_goes_rarest_first_and_asks_for_at_least_one_term() -> None:
    terms = {"common", "rare", "~bi", "^c"}
    probe_terms, need = probe(terms, 0.85, {"common": 90, "rare": 1, "~bi": 5, "^c": 40})
    assert probe_terms[0] == "rare"
    assert 1 <= need <= len(probe_terms)
    assert probe(set(), 0.85) == ([], 1)


def _texts(rng: random.Random, count: int) -> list[str]:
    words = [f"w{i}" for i in range(12)] + ["alpha", "beta", "gamma", "delta"]
    return [" ".join(rng.choices(words, k=rng.randint(3, 40))) for _ in range(count)]


def test_alignment_is_difflibs_ratio_wherever_it_can_reach_the_threshold() -> None:
    rng = random.Random(7)
    texts = _texts(rng, 30)
    texts += [t + " w1" for t in texts[:15]] + [t.replace("w2", "w3", 1) for t in texts[:15]]
    alignment = Alignment(0.85)
    reached = 0
    for a in texts:
        for j, b in enumerate(texts):
            exact = SequenceMatcher(None, a, b).ratio()
            got = alignment.ratio(a, j, b)
            if exact >= 0.85:
                reached += 1
                assert got == exact
            else:
                assert got < 0.85
    assert reached > len(texts)  # the variants, not only each text with itself
    assert alignment.skipped == 0


def test_the_alignment_budget_bounds_a_batch_and_then_counts_pairs_as_distinct() -> None:
    text = "the same forty words " * 12
    cost = (len(text) + ALIGNMENT_PAD) ** 2
    alignment = Alignment(0.85, budget=3 * cost)
    ratios = [alignment.ratio(text, key, text) for key in range(10)]
    assert ratios == [1.0] * 3 + [0.0] * 7
    assert (alignment.aligned, alignment.skipped) == (3, 7)


def test_a_batch_of_reordered_words_verifies_a_bounded_number_of_candidates(
    analyzer: TextAnalyzer,
) -> None:
    """The adversarial batch: every item holds every term of every other, so
    before every earlier item was aligned with each (500k pairs for 1,000 items)."""
    words = [f"word{i}" for i in range(40)]
    rng = random.Random(29)
    analyses = [analyzer.analyze(" ".join(rng.sample(words, 40))) for _ in range(300)]
    alignment = Alignment(0.85)
    targets = decide(analyses, {}, [None] * len(analyses), alignment)
    assert all(t.creates for t in targets)  # reordered words are not the same statement
    assert alignment.aligned + alignment.skipped <= NEAR_DUPLICATE_CANDIDATES * len(analyses)
    assert alignment.budget >= 0


def test_a_near_duplicate_in_the_batch_still_merges(analyzer: TextAnalyzer) -> None:
    said = ["我很担心下周的考试", "My sister Ann lives in Lisbon", "我很担心下周的考试啊"]
    analyses = [analyzer.analyze(s) for s in said]
    targets = decide(analyses, {}, [None, None, None], Alignment(0.85))
    assert [(t.kind, t.key, t.creates) for t in targets] == [
        ("new", 0, True),
        ("new", 1, True),
        ("new", 0, False),
    ]
    # A stored near-duplicate wins over none in the batch; an exact stored hash first.
    stored = {(analyses[1].content_hash, "user"): 77}
    targets = decide(analyses, stored, [None, None, (55, 0.9)], Alignment(0.85))
    assert [(t.kind, t.key) for t in targets] == [("new", 0), ("stored", 77), ("new", 0)]


def test_a_statement_repeats_only_words_of_its_own_role(analyzer: TextAnalyzer) -> None:
    """The assistant echoing the person (exactly or nearly) starts a memory of its own;
    the person saying it again still merges, past the assistant's echo."""
    said = [
        "我很担心下周的考试",
        "我很担心下周的考试",
        "我很担心下周的考试啊",
        "我很担心下周的考试",
    ]
    roles = ["user", "assistant", "assistant", "user"]
    analyses = [analyzer.analyze(s) for s in said]
    targets = decide(analyses, {}, [None] * 4, Alignment(0.85), roles)
    assert [(t.kind, t.key, t.creates) for t in targets] == [
        ("new", 0, True),
        ("new", 1, True),
        ("new", 1, False),
        ("new", 0, False),
    ]
    # A stored hash is matched with its role: the person's stored words are not the
    # assistant's.
    stored = {(analyses[0].content_hash, "user"): 77}
    targets = decide(analyses[:2], stored, [None, None], Alignment(0.85), roles[:2])
    assert [(t.kind, t.key) for t in targets] == [("stored", 77), ("new", 0)]
