"""A soak: the server's RSS over time under requests with new words in every sentence
(4-7 MB more per 10k requests; does it level off?).

One real server (bench/server.py) takes ``soak_windows`` windows of ``soak_seconds`` of
a closed-loop load (bench/traffic.py) of ``soak_clients`` clients: adds, recalls and
message scoring, each text carrying words no earlier request used (a counter spelled in
letters), so every cache keyed by a word or a text sees only new keys. After each window
the server's VmRSS is read from /proc. Reported: RSS after every window against the
requests served so far, and the growth per 10k requests over the first and the second
half of the windows: a cache that fills and then evicts shows as growth in the first half
only; a leak grows in both.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import random
import string
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.data import Generator
from bench.footprint import process_tree_memory_mib
from bench.measure import ratio
from bench.scenarios import TOP_K
from bench.server import running_server
from bench.traffic import Request, RequestSource, load_clients, run_window

SOAK_SEED_OFFSET = 900_000
PER = 10_000  # growth is reported per this many requests


def _word(n: int) -> str:
    """A word no other request used: ``n`` spelled in letters (zq-prefixed, so no real one)."""
    letters = []
    while True:
        n, rest = divmod(n, 26)
        letters.append(string.ascii_lowercase[rest])
        if n == 0:
            return "zq" + "".join(letters)


def soak_source(users: list[str], seed: int) -> RequestSource:
    """Each client's requests: 50% adds, 35% recalls, 15% message scoring, all new words."""
    counter = itertools.count(seed * 1_000_000)

    def client(i: int) -> Iterator[Request]:
        rng, gen = random.Random(seed + i), Generator(seed + i)
        while True:
            user, new = rng.choice(users), f"{_word(next(counter))} {_word(next(counter))}"
            roll = rng.random()
            if roll < 0.5:
                content, memory_type = gen.text()
                body: dict[str, Any] = {"content": f"{content} {new}", "memory_type": memory_type}
                yield Request("add", "POST", f"/v1/users/{user}/memories", body)
            elif roll < 0.85:
                body = {"query": f"{gen.query()} {new}", "top_k": TOP_K, "track": False}
                yield Request("recall", "POST", f"/v1/users/{user}/recall", body)
            else:
                messages = [
                    {"role": "user", "content": f"{gen.text()[0]} {new}"},
                    {"role": "assistant", "content": f"{gen.text()[0]} {_word(next(counter))}"},
                ]
                yield Request(
                    "score", "POST", f"/v1/users/{user}/messages/score", {"messages": messages}
                )

    return client


def _growth(points: list[dict[str, float]]) -> float | None:
    """MiB per PER requests from the first point to the last."""
    if len(points) < 2 or points[-1]["requests"] == points[0]["requests"]:
        return None
    rss = points[-1]["rss_mib"] - points[0]["rss_mib"]
    return rss * PER / (points[-1]["requests"] - points[0]["requests"])


async def soak(
    now: datetime,
    seed: int,
    database_url: str,
    users: list[str],
    *,
    clients: int,
    seconds: float,
    windows: int,
    log_path: Path,
) -> dict[str, Any]:
    """RSS after each window of the soak, and its growth per 10k requests by half."""
    series: list[dict[str, float]] = []
    errors = 0
    async with running_server(database_url, now, log_path, 1) as server:
        idle = process_tree_memory_mib(server.pid)
        if idle:
            series.append({"requests": 0, "rss_mib": idle["rss"]})
        served = 0
        for window in range(windows):
            source = soak_source(users, seed + SOAK_SEED_OFFSET + window * clients)
            async with load_clients(server.base_url, clients) as http:
                done = await run_window(http, seconds, source)
            served += done.completed()
            errors += sum(done.errors.values())
            memory = process_tree_memory_mib(server.pid)
            if memory:
                series.append({"requests": served, "rss_mib": memory["rss"]})
    middle = len(series) // 2
    return {
        "clients": clients,
        "seconds_per_window": seconds,
        "windows": windows,
        "requests": served,
        "requests_per_second": ratio(served, seconds * windows),
        "errors": errors,
        "series": series,
        "growth_mib_per_10k_first_half": _growth(series[: middle + 1]),
        "growth_mib_per_10k_second_half": _growth(series[middle:]),
    }


def main(argv: list[str] | None = None) -> int:
    """``python -m bench.soak``: the soak alone, on a fresh SQLite file; JSON on stdout."""
    parser = argparse.ArgumentParser(prog="python -m bench.soak", description=__doc__)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--windows", type=int, default=8)
    parser.add_argument("--users", type=int, default=4)
    args = parser.parse_args(argv)
    from services.core.schema import migrate

    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{Path(tmp) / 'soak.db'}"
        asyncio.run(migrate(url))
        result = asyncio.run(
            soak(
                datetime(2026, 1, 1, tzinfo=UTC),
                20260101,
                url,
                [f"soak-{i}" for i in range(args.users)],
                clients=args.clients,
                seconds=args.seconds,
                windows=args.windows,
                log_path=Path(tmp) / "server.log",
            )
        )
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
