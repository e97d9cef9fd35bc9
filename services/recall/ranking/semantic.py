"""The plug-in point for a semantic candidate source (an embedder), off by default.

Recall asks the source for the user's memories most similar to the query. It ranks by
each one's similarity relative to the best match (the ``semantic`` signal; services/
embeddings/nearest.py ``relative_to_best``) and weighs the similarity itself as evidence
(services/recall/evidence.py), which only an absolute value can be. Without a source
the signal is 0 for every memory and costs nothing. A source that fails or times out
is logged and skipped: recall then ranks by the other signals and never fails because
of it.
"""

from __future__ import annotations

from typing import Protocol

from services.embeddings.similarities import Similarities


class SemanticSource(Protocol):
    """Per-user similarity search (implemented by the embeddings provider)."""

    async def similar(self, user_id: str, query: str, limit: int) -> Similarities:
        """The user's ``limit`` nearest memories with their cosine similarity in [0, 1]
        (not relative to the best: recall makes the ranking signal), and the query's
        spread over the whole store."""
        ...
