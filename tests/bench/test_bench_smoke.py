"""The benchmark harness end to end at the smoke scale: every scenario, every output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.readme import END, START, update_readme
from bench.report import render_text, write_json, write_markdown
from bench.runner import run_bench
from bench.scales import SCALES
from tests.db_backends import postgres_server_url

BACKENDS = ["sqlite"] + (["postgresql"] if postgres_server_url() else [])


def _outputs(tmp_path: Path) -> tuple[dict[str, Any], str, list[Path]]:
    """The JSON, the Markdown and any SQLite file left behind."""
    stored = json.loads((tmp_path / "latest.json").read_text(encoding="utf-8"))
    markdown = (tmp_path / "benchmarks.md").read_text(encoding="utf-8")
    return stored, markdown, list(tmp_path.glob("**/*.db"))


def _positive(section: dict[str, Any], *keys: str) -> None:
    for key in keys:
        assert section[key] > 0, key


def _ordered(latency: dict[str, float]) -> None:
    assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"]


def _check_rescore_recall(section: dict[str, Any], total: int) -> None:
    scale = SCALES["smoke"]
    assert section["memories"] == scale.rescore_recall_tenant
    assert section["rows"] == total
    # Alone: at least the minimum number of recalls in every repetition.
    assert section["idle"]["samples"] >= scale.reps * scale.queries
    # During: at least one recall started in every run (failed ones are counted, not timed).
    started = section["during"]["samples"] + section["errors"].get("recall", 0)
    assert started >= scale.reps
    _ordered(section["idle"])
    _ordered(section["during"])
    assert section["ratio_p99"] == section["during"]["p99"] / section["idle"]["p99"]
    assert section["error_count"] == sum(section["errors"].values())
    assert section["rescore_seconds_alone"] > 0
    assert section["rescore_seconds"] is None or section["rescore_seconds"] > 0


def _check_http_load(section: dict[str, Any], total: int, workers: int = 1) -> None:
    scale = SCALES["smoke"]
    assert section["workers"] == workers
    assert section["clients"] == scale.load_clients
    assert section["repetitions"] == scale.load_reps
    for kind in ("recall", "add", "healthz"):
        _ordered(section[kind])
        _positive(section[kind], "samples", "per_second")
    assert section["requests_per_second"] > section["recall"]["per_second"]
    assert section["ratio_p50"] == section["recall"]["p50"] / section["healthz"]["p50"]
    assert section["error_count"] == sum(section["errors"].values())
    # The bench sends only valid requests: a 4xx means the harness, not the server, broke.
    assert not [s for s in section["error_samples"] if " HTTP 4" in s]
    server = section["server"]
    assert server["database_memories"] > total  # the adds were stored
    assert server["database_bytes"] > 0
    _positive(server, "rss_mib_before_load", "rss_mib_after_load", "peak_rss_mib")
    assert server["peak_rss_mib"] >= server["rss_mib_after_load"]
    # CPU per request, per phase: the server and the load generator always work; a
    # PostgreSQL server on this machine is counted beside them (SQLite has none).
    cpu = section["cpu_ms_per_request"]
    assert set(cpu) == {"mix", "healthz"}
    for phase in cpu.values():
        assert phase["server"] > 0
        assert phase["generator"] > 0
    assert cpu["mix"]["server"] > cpu["healthz"]["server"]


def _check_chat_proxy(section: dict[str, Any]) -> None:
    scale = SCALES["smoke"]
    assert section["memories"] >= scale.tenants[0]  # and the turns the loads stored
    measured = ("cpu_before_upstream", "cpu_to_first_byte", "cpu_passthrough")
    for name in (*measured, "wall_before_upstream"):
        _ordered(section[name])
        assert section[name]["samples"] == scale.reps * scale.queries
    for name in ("ttfb_proxied", "ttfb_direct"):
        _ordered(section[name])
    # The model server waits for the client's first event before the rest: a relay that
    # gathered the stream would run that wait out (an event, not a clock).
    assert section["buffered_streams"] == 0
    assert section["ttfb_ratio_p50"] == (
        section["ttfb_proxied"]["p50"] / section["ttfb_direct"]["p50"]
    )


def _check_flood(section: dict[str, Any]) -> None:
    """The section's shape, not its figures: the target is reported, not asserted."""
    scale = SCALES["smoke"]
    assert section["store"] == scale.flood_store
    assert section["notes"] == scale.flood_notes
    assert section["flood_clients"] == scale.flood_clients
    for name in ("alone", "under_flood"):
        _ordered(section[name])
    # Every recall of the measured person answered (a 429 is the flooder's, not theirs).
    assert section["alone"]["samples"] == scale.flood_recalls
    assert section["errors_alone"] == {}
    assert section["under_flood"]["samples"] + sum(section["errors_under_flood"].values()) == (
        scale.flood_recalls
    )
    assert section["ratio_p50"] == section["under_flood"]["p50"] / section["alone"]["p50"]
    flooder = section["flooder"]
    classes = ("ok_200", "busy_429", "server_error_5xx", "timeout", "other")
    assert sum(flooder[c] for c in classes) == flooder["requests"] > 0
    assert 0 <= section["new_with_vectors"] <= section["new_memories"] == scale.flood_new
    seconds = section["new_vectors_seconds"]
    assert (seconds is None) == (section["new_with_vectors"] < section["new_memories"])
    assert isinstance(section["meets_target"], bool)


async def test_smoke_scale_measures_every_scenario(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The bench, like a started server, parks its heap (api/server/heap.py); here that heap is
    # the whole test process, whose later garbage a freeze would keep for good.
    monkeypatch.setenv("FREEZE_STARTUP_HEAP", "false")
    results = await run_bench(
        BACKENDS,
        SCALES["smoke"],
        pg_server=postgres_server_url(),
        tmp_dir=tmp_path,
        log=lambda _message: None,
    )
    write_json(results, tmp_path / "latest.json")
    write_markdown(results, tmp_path / "benchmarks.md")

    stored, markdown, leftovers = _outputs(tmp_path)
    assert stored["scale"] == "smoke"
    assert stored["machine"]["cpu_count"] >= 1
    assert set(stored["backends"]) == set(BACKENDS)
    for backend, r in stored["backends"].items():
        assert r["server_version"], backend
        assert r["total_memories"] == sum(SCALES["smoke"].tenants)
        [recall] = r["recall"]
        assert recall["memories"] == SCALES["smoke"].tenants[0]
        for name in ("floor", "recall", "recall_tracked", "recall_http"):
            _positive(recall[name], "p50", "p95", "p99")
            assert recall[name]["p50"] <= recall[name]["p95"] <= recall[name]["p99"]
        _positive(recall, "recall_ratio_p50", "recall_tracked_ratio_p50", "recall_http_ratio_p50")
        ingest = r["ingest"]
        _positive(ingest["ingest"], "seconds", "per_second")
        _positive(ingest["floor"], "seconds", "per_second")
        assert ingest["ratio"] == ingest["ingest"]["per_second"] / ingest["floor"]["per_second"]
        rescore = r["rescore"]
        assert rescore["rows"] == r["total_memories"]
        _positive(rescore["rescore"], "seconds", "per_second")
        _positive(rescore["floor"], "seconds", "per_second")
        assert rescore["ratio"] == rescore["rescore"]["seconds"] / rescore["floor"]["seconds"]
        assert all(load["rows"]["memory_terms"] > 0 for load in r["load"])
        _check_rescore_recall(r["rescore_recall"], r["total_memories"])
        _check_http_load(r["http_load"], r["total_memories"])
        if backend == "postgresql":  # and again against several server processes
            workers = SCALES["smoke"].load_workers
            _check_http_load(r["http_load_workers"], r["total_memories"], workers)
            # Their RSS is the sum over the processes: more than one process's.
            assert (
                r["http_load_workers"]["server"]["rss_mib_before_load"]
                > r["http_load"]["server"]["rss_mib_before_load"]
            )
        else:
            assert "http_load_workers" not in r  # SQLite serves one process
        context = r["context_assembly"]
        assert context["memories"] == SCALES["smoke"].tenants[0]
        assert context["messages"] == 200
        assert 0 < context["max_total_tokens"] <= context["budget_tokens"]
        _ordered(context["assemble"])
        _ordered(context["floor"])
        assert context["ratio_p50"] == context["assemble"]["p50"] / context["floor"]["p50"]
        _check_chat_proxy(r["chat_proxy"])
        _check_flood(r["flood"])
        soak = r["soak"]
        assert soak["requests"] > 0
        assert soak["errors"] == 0, soak
        assert soak["series"][0]["requests"] == 0  # idle, then after each window
        assert len(soak["series"]) == SCALES["smoke"].soak_windows + 1
        assert all(p["rss_mib"] > 0 for p in soak["series"])
        assert set(stored["config"]["steps"]) - {"http_load_workers"} <= set(r)

    assert markdown.startswith("<!-- Generated by `make bench`")
    readme = tmp_path / "README.md"
    readme.write_text(f"# Title\n\n{START}\nold figures\n{END}\n\n## Next\n", encoding="utf-8")
    assert update_readme(results, readme)
    updated = readme.read_text(encoding="utf-8")
    assert "old figures" not in updated
    assert updated.startswith("# Title\n\n" + START)
    assert updated.endswith(END + "\n\n## Next\n")
    assert "**Recall latency" in updated
    # The README shows one table; every table is in docs/benchmarks.md.
    assert "**Ingest throughput" not in updated
    assert "## Ingest throughput" in markdown
    assert "do not edit by hand" in markdown
    for backend in BACKENDS:
        assert backend in render_text(results)
    # Each new section has its table and its paragraph in the Method section.
    for table, method in [
        ("Recall during rescoring", "**Recall during rescoring**"),
        ("HTTP under load", "**HTTP under load**"),
        ("HTTP under load: CPU ms per request", "**CPU per request under the load**"),
        ("Context assembly", "**Context assembly**"),
        ("Server memory after the load", "**Server memory.**"),
        ("Server memory over a soak of new words", "**Soak**"),
        ("Chat proxy", "**Chat proxy**"),
        ("Recall under an embedding flood", "**Recall under an embedding flood**"),
    ]:
        assert f"## {table}" in markdown
        assert method in markdown
    # The SQLite database is deleted at the end (PostgreSQL's is dropped).
    assert leftovers == []
