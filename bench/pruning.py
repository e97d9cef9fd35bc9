"""``python -m bench.pruning``: what static pruning of common terms costs and saves.

Recall reads a query term up to max(``BM25_TERM_POSTINGS_MIN``, ``BM25_TERM_POSTINGS_SHARE``
× the user's memories) postings (services/repositories/statements/bm25_sql.py). This loads one bench
tenant into a scratch database (as ``python -m bench`` does) and, for every bench query,
runs the BM25 statement unpruned and at each bound asked for, interleaved, then reports
per bound:

- the statement's time (p50, p90, max), next to the unpruned statement's;
- how many of the unpruned BM25 top 10 the pruned statement also ranks in its top 10;
- the same for a whole recall's top 10 (every signal, untracked), which is what a user sees.

The defaults were chosen with it; LoCoMo measures the same bound's cost in
recall@k (``BM25_TERM_POSTINGS_MIN=55 python -m evals locomo …``).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from dataclasses import dataclass, field

from bench.config import NOW
from bench.runner import DEFAULT_SEED
from bench.scales import tenant_name
from bench.scenarios import TOP_K
from bench.scratch import ScratchTenant, bench_queries, scratch_tenant
from services.recall.ranking.understanding import understand
from services.recall.relevance import field_weights
from services.repositories.search import SearchRepository
from services.repositories.statements.bm25_sql import LONGEST, Bm25Query

UNPRUNED = (LONGEST, 1.0)


@dataclass
class Outcome:
    """One bound's measurements over every query."""

    minimum: int
    share: float
    seconds: list[float] = field(default_factory=list)
    bm25_top: list[float] = field(default_factory=list)  # share of the unpruned top 10 kept
    recall_top: list[float] = field(default_factory=list)

    @property
    def label(self) -> str:
        if (self.minimum, self.share) == UNPRUNED:
            return "unpruned"
        return f"min {self.minimum}, share {self.share:g}"


def _kept(pruned: list[int], unpruned: list[int]) -> float:
    """Share of ``unpruned``'s first ``TOP_K`` that ``pruned``'s first ``TOP_K`` holds."""
    reference = set(unpruned[:TOP_K])
    return len(reference & set(pruned[:TOP_K])) / len(reference) if reference else 1.0


async def _bm25(tenant: ScratchTenant, query: str, bound: tuple[int, float]) -> list[int]:
    s = tenant.settings
    weights = field_weights(understand(query, tenant.analyzer, NOW).terms, s)
    search = Bm25Query(
        tenant.user,
        weights,
        k1=s.bm25_k1,
        b=s.bm25_b,
        limit=s.recall_candidates,
        current_only=True,
        term_postings=bound[0],
        term_share=bound[1],
    )
    async with tenant.db.reader() as session:
        found = await SearchRepository(session).bm25_search(search)
    return [sketch.id for _, sketch in found.candidates]


async def _recall(tenant: ScratchTenant, query: str, bound: tuple[int, float]) -> list[int]:
    settings = tenant.settings.model_copy(
        update={"bm25_term_postings_min": bound[0], "bm25_term_postings_share": bound[1]}
    )
    async with tenant.db.reader() as session:
        service = tenant.services.reconfigured(settings).recall(session)
        hits = await service.recall_memories(tenant.user, query, TOP_K, track=False)
    return [h.memory.id for h in hits]


async def measure(
    backend: str,
    size: int,
    queries: int,
    bounds: list[tuple[int, float]],
    *,
    seed: int = DEFAULT_SEED,
    pg_server: str | None = None,
) -> tuple[int, list[Outcome]]:
    """The tenant's memory count, and the unpruned outcome followed by each bound's."""
    outcomes = [Outcome(*bound) for bound in [UNPRUNED, *bounds]]
    asked = list(dict.fromkeys(bench_queries(seed, size, queries)))
    async with scratch_tenant(backend, size, seed, pg_server) as tenant:
        await _bm25(tenant, asked[0], UNPRUNED)  # warm the pool and the statement cache
        for query in asked:
            reference = await _bm25(tenant, query, UNPRUNED)
            seen = await _recall(tenant, query, UNPRUNED)
            for outcome in outcomes:
                bound = (outcome.minimum, outcome.share)
                start = time.perf_counter()
                ids = await _bm25(tenant, query, bound)
                outcome.seconds.append(time.perf_counter() - start)
                outcome.bm25_top.append(_kept(ids, reference))
                outcome.recall_top.append(_kept(await _recall(tenant, query, bound), seen))
        return tenant.loaded.memories, outcomes


def render(tenant: str, backend: str, memories: int, outcomes: list[Outcome]) -> str:
    """One line per bound."""
    count = len(outcomes[0].seconds)
    lines = [
        f"BM25 statement on {tenant} ({backend}, {memories:,} memories), {count} bench"
        f" queries; ms p50 / p90 / max; top-{TOP_K} kept from unpruned (mean, min)",
    ]
    for o in outcomes:
        ms = sorted(1000 * t for t in o.seconds)
        p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
        lines.append(
            f"  {o.label:<24} {statistics.median(ms):7.2f} {p90:7.2f} {ms[-1]:7.2f}"
            f"  bm25 {statistics.mean(o.bm25_top):6.1%} {min(o.bm25_top):5.0%}"
            f"  recall {statistics.mean(o.recall_top):6.1%} {min(o.recall_top):5.0%}"
        )
    return "\n".join(lines)


def _bound(text: str) -> tuple[int, float]:
    minimum, share = text.split(",")
    return int(minimum), float(share)


def main(argv: list[str] | None = None) -> int:
    """Run and print."""
    parser = argparse.ArgumentParser(prog="python -m bench.pruning", description=__doc__)
    parser.add_argument("--backend", choices=["sqlite", "postgresql"], default="postgresql")
    parser.add_argument("--tenant", type=int, default=100_000, help="memories of the tenant")
    parser.add_argument("--queries", type=int, default=200, help="bench queries (repeats dropped)")
    parser.add_argument(
        "--bound",
        type=_bound,
        action="append",
        help="MIN,SHARE, e.g. 2000,0.1 (repeatable; default 2000,0.2 2000,0.1 2000,0.05)",
    )
    parser.add_argument(
        "--pg-url",
        default=None,
        help="PostgreSQL server URL (default: $BENCH_DATABASE_URL or the local server)",
    )
    args = parser.parse_args(argv)
    bounds = args.bound or [(2000, 0.2), (2000, 0.1), (2000, 0.05)]
    memories, outcomes = asyncio.run(
        measure(args.backend, args.tenant, args.queries, bounds, pg_server=args.pg_url)
    )
    print(render(tenant_name(args.tenant), args.backend, memories, outcomes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
