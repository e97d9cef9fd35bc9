"""Why a hit is there: the query-dependent evidence that ties it to the question, the
query-independent signals that only rank it, and a calibrated ``confidence``.

Query-dependent (the memory answers *this* query):

- ``terms``: the query's content terms the memory holds (services/recall/ranking/
  understanding.py: no time expression, no recap words), and ``term_coverage``, their
  share of the query's term weight, each term weighed by its idf in the user's memories
  times its field weight (a word 1, a character bigram 0.5, a character 0.3; a word no
  memory holds weighs the most, as if one memory in 2N + 1 held it, and a bigram or
  character no memory holds is left out);
- ``relevance``: BM25 / the best candidate's BM25;
- ``phrase``: the query's keywords and phrases found verbatim;
- ``time``: how well when it was said fits the query's time expression (0 without one);
- ``feeling``: how well its emotion tags answer the query's urgency or feeling;
- ``semantic``: similarity from a configured semantic source (``across``: the memory is in
  the other language than the query, so no word of it can match).

Query-independent: ``importance``, ``recency`` and ``continuity`` (a neighbour of a strong
hit in the same conversation; such a hit is ``context_of`` that anchor).

A hit with no query-dependent evidence is not returned for a non-empty query: it could
be returned for any question. A continuity hit has none of its own and is
returned as the context of its anchor.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from services.text.analysis import BIGRAM_PREFIX, UNIGRAM_PREFIX, term_kind

# The bundled model's centred cosine of unrelated text is about 0-0.2
# (EMBEDDING_MIN_SIMILARITY, below which the source returns nothing): confidence weighs
# only the similarity above it (services/recall/confidence.py).
SEMANTIC_UNRELATED = 0.2
# A similarity alone (no term, phrase, time or feeling) is evidence from this cosine
# up. Of the scenario hits with nothing but a similarity (python -m evals.confidence_fit
# --embedding local, floor lowered to 0.2), acceptable / not by cosine:
# 0.2-0.25 11/189, 0.25-0.3 4/64, 0.3-0.35 6/18, 0.35-0.4 4/7, from 0.4 5/0 (LoCoMo dev:
# 19/243 below 0.35, 3/62 above). Below 0.35 most are filler; from it up they are about
# even, and confidence (services/recall/confidence.py) weighs the rest.
SEMANTIC_FLOOR = 0.35
# The same for a memory in the other language than the query (services/text/language.py),
# whose similarity is all the evidence it can have. Of such hits with nothing but a
# similarity (same fit, this floor lowered to 0.2; the scenarios and our cross-lingual
# questions), acceptable / not by cosine: 0.2-0.25 3/26, 0.25-0.3 2/11, from 0.3 36/4.
SEMANTIC_FLOOR_ACROSS = 0.3
# A time match below this is no evidence: the memory was said more than one half-life
# (RECALL_TEMPORAL_HALF_LIFE_DAYS) outside the query's time span.
TIME_FLOOR = 0.5


@dataclass(frozen=True)
class QueryWeights:
    """The query's content terms with their weights (shared by every hit of a recall)."""

    terms: Mapping[str, float] = field(default_factory=dict)
    has_time: bool = False
    has_feeling: bool = False

    @property
    def total(self) -> float:
        return sum(self.terms.values())


def spelled_out(query_terms: Iterable[str], held: set[str]) -> set[str]:
    """The query's Chinese words a memory holds bigram by bigram, or character by
    character for a one-character word, though jieba cut it otherwise (「市长」 in
    「南京市长江大桥」, cut 南京市 / 长江大桥; 「猫」 in 「我的猫叫咪咪」, cut 猫叫):
    held all the same."""
    found = set()
    for term in query_terms:
        if term_kind(term) != "word" or term in held:
            continue
        if len(term) == 1:
            pieces = {UNIGRAM_PREFIX + term}
        else:
            pieces = {BIGRAM_PREFIX + term[i : i + 2] for i in range(len(term) - 1)}
        if all(p in held for p in pieces):
            found.add(term)
    return found


def unknown_term_idf(documents: int) -> float:
    """The idf of a term none of ``documents`` memories holds (Lucene's form, df 0)."""
    return math.log(1.0 + (documents + 0.5) / 0.5)


@dataclass(frozen=True)
class Evidence:
    """What ties one hit to the query, and what only ranks it."""

    query: QueryWeights
    terms: tuple[str, ...] = ()
    relevance: float = 0.0
    phrase: float = 0.0
    time: float = 0.0
    feeling: float = 0.0
    semantic: float = 0.0
    across: bool = False  # the memory is in the other language than the query
    # Standard deviations the similarity stands above the store's mean for this query
    # (None: no source, or a store too small to tell; services/embeddings/similarities.py).
    standing: float | None = None
    # From how many deviations a standing is evidence (RECALL_SEMANTIC_STANDING; 0: the
    # absolute floors above decide, as they do without a standing).
    standing_floor: float = 0.0
    importance: float = 0.0
    recency: float = 0.0
    continuity: float = 0.0
    context_of: int | None = None  # the anchor a continuity hit is context of

    @property
    def term_coverage(self) -> float:
        """The share of the query's term weight this memory holds."""
        total = self.query.total
        if total <= 0:
            return 0.0
        return min(1.0, sum(self.query.terms.get(t, 0.0) for t in self.terms) / total)

    @property
    def own(self) -> bool:
        """The memory itself matches the query (not only as a neighbour)."""
        return bool(
            self.terms
            or self.phrase > 0
            or self.time >= TIME_FLOOR
            or self.feeling > 0
            or self.similar
        )

    @property
    def similar(self) -> bool:
        """The similarity is evidence: it stands out from the person's own store by at
        least ``standing_floor`` deviations, or, where there is no standing, it is at
        least the absolute floor for its language."""
        if self.standing is not None and self.standing_floor > 0:
            return self.standing >= self.standing_floor
        return self.semantic >= (SEMANTIC_FLOOR_ACROSS if self.across else SEMANTIC_FLOOR)

    @property
    def semantic_alone(self) -> bool:
        """Its own evidence is a similarity and nothing else."""
        return self.similar and not (
            self.terms or self.phrase > 0 or self.time >= TIME_FLOOR or self.feeling > 0
        )

    @property
    def query_dependent(self) -> bool:
        """Any evidence that depends on the query: its own, or as a conversation's context."""
        return self.own or self.context_of is not None

    def as_dict(self) -> dict[str, object]:
        """The API's ``evidence`` object."""
        return {
            "query_dependent": {
                "terms": list(self.terms),
                "term_coverage": self.term_coverage,
                "relevance": self.relevance,
                "phrase": self.phrase,
                "time": self.time,
                "feeling": self.feeling,
                "semantic": self.semantic,
                "other_language": self.across,
                "standing": self.standing,
            },
            "query_independent": {
                "importance": self.importance,
                "recency": self.recency,
                "continuity": self.continuity,
            },
            "context_of": self.context_of,
        }
