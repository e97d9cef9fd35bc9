"""``python -m evals``: the recall, compression, bilingual and scenario evaluations.

    python -m evals locomo|compression|bilingual|scenarios [options]

The evaluations are tools that measure the service, not part of it: they are not in the
product wheel, and the installed ``jarvis-memory`` does not import them. Each runs on a
temporary database of its own, with the service built by the composition root from the
environment's settings. ``python -m evals.people`` is the people evaluation.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence

from api.cli.parser import _HelpFormatter
from api.cli.progress import ProgressBar
from api.observability.request_logging import configure_logging
from evals.bilingual_command import add_bilingual_arguments, run_bilingual_command
from evals.command import (
    add_compression_arguments,
    add_locomo_arguments,
    run_compression_command,
    run_locomo_command,
)
from evals.scenario_command import add_scenarios_arguments, run_scenarios_command
from services.core.errors import DomainError
from services.core.settings import Settings


def build_parser() -> argparse.ArgumentParser:
    """The evaluations' command-line grammar."""
    parser = argparse.ArgumentParser(
        prog="python -m evals",
        description="Evaluations of jarvis-memory on a benchmark dataset.",
        formatter_class=_HelpFormatter,
    )
    benchmarks = parser.add_subparsers(dest="benchmark", required=True, metavar="BENCHMARK")
    add_locomo_arguments(
        benchmarks.add_parser(
            "locomo",
            help="LoCoMo recall@k vs BM25",
            description="LoCoMo recall@k of the service against a BM25 baseline.",
            formatter_class=_HelpFormatter,
        )
    )
    add_compression_arguments(
        benchmarks.add_parser(
            "compression",
            help="LoCoMo evidence kept by smart_compress",
            description="LoCoMo evidence kept by smart_compress at several budgets.",
            formatter_class=_HelpFormatter,
        )
    )
    add_bilingual_arguments(
        benchmarks.add_parser(
            "bilingual",
            help="Chinese, English and cross-lingual recall with the multilingual model",
            description="MemoryBank (zh, en, en→zh, zh→en) and cross-lingual questions: "
            "hit@1 and R@5 offline and with the bundled multilingual model.",
            formatter_class=_HelpFormatter,
        )
    )
    add_scenarios_arguments(
        benchmarks.add_parser(
            "scenarios",
            help="personal-assistant scenarios: precision, filler, card junk",
            description="Personal-assistant scenarios: precision, filler, card junk.",
            formatter_class=_HelpFormatter,
        )
    )
    return parser


async def _run(args: argparse.Namespace, settings: Settings) -> int:
    if args.benchmark == "scenarios":
        return await run_scenarios_command(args, settings)
    if args.benchmark == "bilingual":
        return await run_bilingual_command(args, settings)
    with ProgressBar("questions") as bar:
        if args.benchmark == "compression":
            return await run_compression_command(args, settings, bar)
        return await run_locomo_command(args, settings, bar)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m evals``; a refused run exits 2 with ``error: <code>: …``."""
    args = build_parser().parse_args(argv)
    settings = Settings()
    configure_logging(settings.log_format)
    try:
        return asyncio.run(_run(args, settings))
    except DomainError as exc:
        print(f"error: {exc.code}: {exc.message}", file=sys.stderr)
        return 2
