"""The ``cross_lingual`` signal: a memory in the other language than the query.

An English question shares no word with a Chinese memory (names and numbers aside), so
its lexical signal is 0 however well the memory answers, and a one-word lexical match in
the question's own language outranks it. For the memories in the other language
(services/text/language.py) the semantic source's similarity stands in for the lexical
match they cannot have, scaled as the semantic signal is, relative to the best match of
either language:

    cross_lingual(m) = exp(−(best cosine of any memory − cos m) / scale)

(EMBEDDING_SIMILARITY_SCALE), and weighs what lexical weighs: the other language's memory
that is as near the query as anything competes with the query's own language's best
lexical match; a memory in the query's language gets 0. Relative to the best of the other
language alone, the least unrelated memory in it got the full weight of a lexical match
for every query (on the fit part of evals/people it came first often enough to rank
recall below the plain cosine). Without a semantic source the signal is empty.

Measured with the bundled model by ``jarvis-memory eval bilingual`` (docs/eval/
bilingual.md): hit@1 on our cross-lingual questions 0.53 before this signal, 0.81 with it
(with the evidence floor for the other language, services/recall/evidence.py).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from services.text.language import chinese_share, other_language


def in_other_language(query_share: float, content: str) -> bool:
    """``content`` is written in the other language than a query of this Chinese share."""
    return other_language(query_share, chinese_share(content))


def cross_lingual_values(
    similar: Mapping[int, float], contents: Mapping[int, str], query_share: float, scale: float
) -> dict[int, float]:
    """Memory id → the signal, for the memories the source found similar that are in the
    other language than the query (``contents``: their texts)."""
    best = max(similar.values(), default=0.0)
    if best <= 0.0:
        return {}
    return {
        mid: math.exp((value - best) / scale) if scale > 0 else value
        for mid, value in similar.items()
        if mid in contents and value > 0.0 and in_other_language(query_share, contents[mid])
    }
