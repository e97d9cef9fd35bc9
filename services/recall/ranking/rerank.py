"""The optional HTTP reranker, fused with the hybrid score by query type (seed 004 §1).

Any ``POST {base}/rerank`` in the common Jina / Cohere / SiliconFlow shape: request
``{model, query, documents, top_n}``, answer ``{"results": [{"index", "relevance_score"}]}``.
The best hybrid candidates are sent, in batches sent at once (seed 004: "批处理支持（最大
20 个文档）", "异步并发处理"); how many and in what batches is the mode's (seed 004 工作模式):

=========  ==========  =====  ============================================
mode       candidates  batch
=========  ==========  =====  ============================================
fast       10          5      quick: few documents, small requests
balanced   20          10     the default
quality    40          20     quality first: more candidates, large batches
=========  ==========  =====  ============================================

(``RERANK_MODE``, a recall's ``rerank_mode``; ``RERANK_CANDIDATES`` overrides the count.)
Each candidate sent gets

    final = w · relevance_score + (1 − w) · hybrid / best hybrid

with ``w`` the reranker's share for the query type (``RERANK_WEIGHTS``: technical 0.6,
diagnostic 0.7, conversational 0.5, conceptual 0.65, otherwise 0.6). The candidates not
sent keep ``(1 − w) · hybrid / best`` (no neural part), so they stay below every reranked
one. A failure, a timeout or a malformed answer of any batch keeps the hybrid order and
logs a warning (seed 004 失败降级机制).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

import httpx

from services.core.metrics import provider_call
from services.core.settings import Settings

log = logging.getLogger(__name__)


RerankMode = Literal["fast", "balanced", "quality"]


@dataclass(frozen=True)
class ModeLimits:
    """How many of the best candidates a mode reranks, and how many per request."""

    candidates: int
    batch: int


MODES: Final[dict[str, ModeLimits]] = {
    "fast": ModeLimits(candidates=10, batch=5),
    "balanced": ModeLimits(candidates=20, batch=10),
    "quality": ModeLimits(candidates=40, batch=20),
}


def mode_limits(settings: Settings, mode: str | None = None) -> ModeLimits:
    """The limits of ``mode`` (default ``RERANK_MODE``), ``RERANK_CANDIDATES`` applied."""
    limits = MODES[mode or settings.rerank_mode]
    if settings.rerank_candidates is not None:
        return ModeLimits(settings.rerank_candidates, limits.batch)
    return limits


class RerankUnavailable(Exception):
    """The reranker gave no usable answer this time."""


@dataclass(frozen=True)
class Reranked:
    """How the reranker moved one candidate: the two scores and the share of each."""

    relevance: float  # the reranker's relevance_score (0 when not sent)
    weight: float  # the reranker's share for this query type
    hybrid: float  # the fused signal score before reranking
    hybrid_normalized: float  # hybrid / the best candidate's hybrid
    mode: str = "balanced"  # the mode that reranked this recall

    @property
    def score(self) -> float:
        return self.weight * self.relevance + (1.0 - self.weight) * self.hybrid_normalized


class HttpReranker:
    """POST the query and documents, return one relevance per document (in order)."""

    def __init__(
        self, base_url: str, model: str, *, api_key: str | None = None, timeout: float = 5.0
    ) -> None:
        self.url = base_url.rstrip("/") + "/rerank"
        self.model = model
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout

    @classmethod
    def from_settings(cls, settings: Settings) -> HttpReranker | None:
        """The configured reranker, or None while ``RERANK_BASE_URL`` is unset."""
        if not settings.rerank_base_url:
            return None
        return cls(
            settings.rerank_base_url,
            settings.rerank_model,
            api_key=settings.rerank_api_key,
            timeout=settings.rerank_timeout,
        )

    async def relevance(self, query: str, documents: Sequence[str]) -> list[float]:
        """One score per document; a document the answer leaves out scores 0."""
        body = {
            "model": self.model,
            "query": query,
            "documents": list(documents),
            "top_n": len(documents),
        }
        with provider_call("reranker"):
            try:
                async with httpx.AsyncClient(timeout=self._timeout) as http:
                    response = await asyncio.wait_for(
                        http.post(self.url, json=body, headers=self._headers), self._timeout
                    )
                    response.raise_for_status()
                    payload = response.json()
            except (httpx.HTTPError, ValueError, TimeoutError) as exc:
                raise RerankUnavailable(f"{type(exc).__name__}: {exc}") from exc
            return _parse_results(payload, len(documents))


def _parse_results(payload: Any, count: int) -> list[float]:
    scores = [0.0] * count
    try:
        for item in payload["results"]:
            index, value = int(item["index"]), float(item["relevance_score"])
            if not 0 <= index < count or not math.isfinite(value):
                raise RerankUnavailable(f"result index {index} or score {value} out of range")
            scores[index] = value
    except (KeyError, TypeError, ValueError) as exc:
        raise RerankUnavailable("no results[].index / relevance_score in the answer") from exc
    return scores


async def rerank(
    reranker: HttpReranker,
    query: str,
    scores: Mapping[int, float],
    texts: Mapping[int, str],
    settings: Settings,
    query_type: str,
    mode: str | None = None,
) -> dict[int, Reranked]:
    """Every candidate's :class:`Reranked`; empty (and a warning) when the reranker fails."""
    if not scores:
        return {}
    limits = mode_limits(settings, mode)
    ordered = sorted(scores, key=lambda mid: (-scores[mid], -mid))
    head = ordered[: limits.candidates]
    batches = [head[i : i + limits.batch] for i in range(0, len(head), limits.batch)]
    answers = await asyncio.gather(
        *(reranker.relevance(query, [texts[mid] for mid in batch]) for batch in batches),
        return_exceptions=True,
    )
    relevance: list[float] = []
    for answer in answers:
        if isinstance(answer, RerankUnavailable):
            log.warning("reranker failed, keeping the hybrid order: %s", answer)
            return {}
        if isinstance(answer, BaseException):
            raise answer
        relevance.extend(answer)
    weight = settings.rerank_weight(query_type)
    best = scores[ordered[0]] or 1.0
    sent = dict(zip(head, relevance, strict=True))
    name = mode or settings.rerank_mode
    return {
        mid: Reranked(sent.get(mid, 0.0), weight, scores[mid], scores[mid] / best, name)
        for mid in ordered
    }
