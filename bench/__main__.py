"""``python -m bench``: run the benchmark, print the tables, write JSON and Markdown."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from bench.readme import update_readme
from bench.report import render_text, write_json, write_markdown
from bench.runner import DEFAULT_SEED, run_bench
from bench.scales import SCALES

BACKENDS = {"sqlite": ["sqlite"], "postgresql": ["postgresql"], "both": ["sqlite", "postgresql"]}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--backend", choices=sorted(BACKENDS), default="both")
    parser.add_argument("--scale", choices=list(SCALES), default="small")
    parser.add_argument("--json", type=Path, default=Path("bench/results/latest.json"))
    parser.add_argument("--markdown", type=Path, default=Path("docs/benchmarks.md"))
    parser.add_argument(
        "--readme",
        type=Path,
        default=None,
        help="also rewrite this README's generated performance section (make bench does)",
    )
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument(
        "--pg-url",
        default=None,
        help="PostgreSQL server URL (default: $BENCH_DATABASE_URL or the local server)",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run, print, write."""
    args = parse_args(argv)
    results = asyncio.run(
        run_bench(BACKENDS[args.backend], SCALES[args.scale], seed=args.seed, pg_server=args.pg_url)
    )
    print(render_text(results))
    write_json(results, args.json)
    write_markdown(results, args.markdown)
    readme = " and README.md" if args.readme and update_readme(results, args.readme) else ""
    print(f"\nwrote {args.json}, {args.markdown}{readme}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
