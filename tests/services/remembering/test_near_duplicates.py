"""The prefix filter finds every near-duplicate, whichever order it probes in."""

from __future__ import annotations

import random

from services.remembering.near_duplicates import TermSetIndex, probe
from services.text.analysis import jaccard

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
