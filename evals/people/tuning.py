"""Rows for choosing recall's constants on the fit part: every question's candidates.

For each question: the recall's hits at ``min_confidence`` 0 (top 20, untracked) with
their evidence, and every memory's cosine to the query from the store's own vectors (the
backfill's), each labelled answer / acceptable / assistant.
"""

from __future__ import annotations

import json
from typing import Any

from evals.people.data import Question
from evals.people.run import Store
from services.composition import Services
from services.recall.tracked import recall_and_track


async def dump_rows(services: Services, store: Store, q: Question, out: Any) -> None:
    """One JSON line for ``q`` on ``store``."""
    hits = await recall_and_track(
        services.db, services.recall, store.user_id, q.text, 20, track=False, min_confidence=0.0
    )
    roles = {t.id: t.role for t in store.person.turns}
    cosines: dict[int, float] = {}
    if services.embeddings is not None:
        (qv,) = await services.embeddings.embed([q.text], query=True)
        async with services.db.reader() as session:
            stored = await services.embeddings.user_vectors(session, store.user_id)
        for mid, v in zip(stored.ids, stored.vectors, strict=True):
            cosines[mid] = float(sum(a * b for a, b in zip(qv, v, strict=True)))

    def label(mid: int) -> dict[str, Any]:
        turns = store.turns_of.get(mid, set())
        return {
            "answer": bool(turns & q.answers),
            "acceptable": bool(turns & q.acceptable),
            "assistant": any(roles.get(t) == "assistant" for t in turns),
        }

    row = {
        "person": store.person.person,
        "mode": store.mode,
        "question": q.id,
        "kind": q.kind,
        "text": q.text,
        "paraphrase": q.paraphrase,
        "cross_lingual": q.cross_lingual,
        "hits": [
            {
                "id": h.memory.id,
                "score": h.score,
                "confidence": h.confidence,
                "evidence": h.evidence.as_dict() if h.evidence else None,
                **label(h.memory.id),
            }
            for h in hits
        ],
        "cosines": {str(mid): c for mid, c in cosines.items()},
        "labels": {str(mid): label(mid) for mid in store.turns_of},
        "texts": {str(mid): len(store.turns_of[mid]) for mid in store.turns_of},
    }
    out.write(json.dumps(row, ensure_ascii=False) + "\n")
