"""Task relevance (任务相关性): how much of the task context a message talks about.

Terms are the project's own (jieba search-mode words, stemmed English, Chinese character
bigrams; see :class:`services.text.analysis.TextAnalyzer`) plus shared software concepts
across languages (:mod:`services.context.importance.glossary`). Each task term counts with
its kind's weight (word 1, bigram ``BIGRAM_WEIGHT``, character ``CHAR_WEIGHT``) times its
inverse document frequency among the messages scored together, so a term every message
repeats (a speaker's name, the project's name) says little and a rare one says a lot::

    relevance = 10 · min(1, Σ_{t ∈ task ∩ msg} w_t·idf_t / (SATURATION · Σ_{t ∈ task} w_t·idf_t))
    idf_t     = ln(1 + (N − df_t + 0.5) / (df_t + 0.5))      (BM25's, never negative)

A message covering ``SATURATION`` (30%) of the task's weight is fully relevant: a
message rarely restates the whole task. Without a task context every message is equally relevant
(``NEUTRAL``).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Final

from services.context.importance.glossary import concepts
from services.core.settings import Settings
from services.text.analysis import TextAnalyzer, term_kind

SATURATION: Final = 0.3
NEUTRAL: Final = 5.0


def text_terms(analyzer: TextAnalyzer, text: str) -> frozenset[str]:
    """The analyzer's query terms of ``text`` plus the software concepts they name."""
    terms = set(analyzer.query_terms(text))
    return frozenset(terms | concepts(t for t in terms if term_kind(t) == "word"))


class TaskRelevance:
    """Relevance of each of a batch of texts to one task context.

    ``terms`` turns a text into its terms; the scorer passes a cached
    :func:`text_terms`, so a conversation scored against many tasks is analysed once.
    """

    def __init__(
        self,
        terms: Callable[[str], frozenset[str]],
        settings: Settings,
        task_context: str,
    ) -> None:
        self._terms = terms
        self._kind_weight = {
            "word": 1.0,
            "bigram": settings.bigram_weight,
            "char": settings.char_weight,
        }
        self._task = terms(task_context) if task_context.strip() else frozenset()

    @property
    def has_task(self) -> bool:
        """False when there is no task context to compare with."""
        return bool(self._task)

    def scores(self, texts: Sequence[str]) -> list[float]:
        """0-10 relevance of every text, IDF taken over ``texts`` themselves."""
        if not self._task:
            return [NEUTRAL] * len(texts)
        matched = [self._task & self._terms(text) for text in texts]
        df: Counter[str] = Counter(t for terms in matched for t in terms)
        n = len(texts)

        def weight(term: str) -> float:
            kind = "word" if term.startswith("@") else term_kind(term)
            idf = math.log(1.0 + (n - df[term] + 0.5) / (df[term] + 0.5))
            return self._kind_weight[kind] * idf

        total = sum(weight(t) for t in self._task)
        if total <= 0.0:
            return [0.0] * n
        return [
            round(10.0 * min(1.0, sum(weight(t) for t in terms) / (SATURATION * total)), 4)
            for terms in matched
        ]
