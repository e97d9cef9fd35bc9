"""The ``cross_lingual`` signal: a memory in the other language than the query.

An English question shares no word with a Chinese memory (names and numbers aside), so
its lexical signal is 0 however well the memory answers, and a one-word lexical match in
the question's own language outranks it. For the memories in the other language
(services/text/language.py) the semantic source's similarity stands in for the lexical
match they cannot have, scaled as lexical is, relative to the best of them:

    cross_lingual(m) = exp(−(best cosine among the other language's memories − cos m) / scale)

(services/embeddings/nearest.py ``relative_to_best``, EMBEDDING_SIMILARITY_SCALE), and
weighs what lexical weighs. So the other language's nearest memory competes with the
query's own language's best lexical match on the remaining signals, as two retrievers'
best answers would; a memory in the query's language gets 0. Without a semantic source
the signal is empty.

Measured with the bundled model by ``python -m evals bilingual`` (docs/eval/
bilingual.md): hit@1 on our cross-lingual questions 0.53 before this signal, 0.81 with it
(with the evidence floor for the other language, services/recall/evidence.py).
"""

from __future__ import annotations

from collections.abc import Mapping

from services.embeddings.nearest import relative_to_best
from services.text.language import chinese_share, other_language


def in_other_language(query_share: float, content: str) -> bool:
    """``content`` is written in the other language than a query of this Chinese share."""
    return other_language(query_share, chinese_share(content))


def cross_lingual_values(
    similar: Mapping[int, float], contents: Mapping[int, str], query_share: float, scale: float
) -> dict[int, float]:
    """Memory id → the signal, for the memories the source found similar that are in the
    other language than the query (``contents``: their texts)."""
    across = [
        (value, mid)
        for mid, value in similar.items()
        if mid in contents and in_other_language(query_share, contents[mid])
    ]
    return relative_to_best(across, scale)
