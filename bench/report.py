"""Render results: a plain-text table for the terminal, JSON, and docs/benchmarks.md.

Every number in the outputs comes from the results dict; nothing here is typed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bench import data
from bench.chat_proxy import HISTORY_TURNS, TARGET_CPU_MS
from bench.flood import FLOOD_TIMEOUT_SECONDS, FLOODER_MEMORIES, LONG_CHARS, TARGET_RATIO
from bench.plan import HISTORY_DAYS
from bench.rescore_recall import IDLE_CAP_SECONDS
from bench.scenarios import FLOOR_RECALL_SQL, FLOOR_RESCORE_SQL, TOP_K

Table = tuple[list[str], list[list[str]]]


def _ms(value: float) -> str:
    return f"{value:.2f}"


def _x(value: float) -> str:
    return f"{value:.1f}×" if value >= 10 else f"{value:.2f}×"


def _rate(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.1f}"


def _mean(loads: list[dict[str, Any]], key: str) -> float:
    """Mean of a per-tenant share, weighted by memories."""
    weights = sum(int(t["memories"]) for t in loads)
    return sum(float(t[key]) * int(t["memories"]) for t in loads) / max(weights, 1)


def _sections(results: dict[str, Any], key: str) -> list[tuple[str, Any]]:
    """(backend, section) for every backend whose run has section ``key``."""
    return [(b, r[key]) for b, r in results["backends"].items() if key in r]


def recall_table(results: dict[str, Any]) -> Table:
    """Recall latency per backend and tenant, with ratios to the floor's p50."""
    head = ["backend", "memories", "floor p50", "recall p50", "p95", "p99", "ratio"]
    head += ["tracked p50", "p95", "p99", "ratio", "http p50", "ratio"]
    rows = []
    for backend, tenants in _sections(results, "recall"):
        for t in tenants:
            fl, rc, tr = t["floor"], t["recall"], t["recall_tracked"]
            http = t.get("recall_http")
            rows.append(
                [backend, f"{t['memories']:,}", _ms(fl["p50"])]
                + [_ms(rc["p50"]), _ms(rc["p95"]), _ms(rc["p99"]), _x(t["recall_ratio_p50"])]
                + [_ms(tr["p50"]), _ms(tr["p95"]), _ms(tr["p99"])]
                + [_x(t["recall_tracked_ratio_p50"])]
                + ([_ms(http["p50"]), _x(t["recall_http_ratio_p50"])] if http else ["-", "-"])
            )
    return head, rows


def ingest_table(results: dict[str, Any]) -> Table:
    """Ingest rate next to the analysis-only floor."""
    head = ["backend", "tenant", "batch", "merged", "floor /s", "ingest /s", "ingest s", "ratio"]
    rows = []
    for backend, i in _sections(results, "ingest"):
        rows.append(
            [
                backend,
                f"{i['tenant_memories']:,}",
                f"{i['batch']:,}",
                f"{i['merged_per_batch']:.0f}",
                _rate(i["floor"]["per_second"]),
                _rate(i["ingest"]["per_second"]),
                f"{i['ingest']['seconds']:.2f}",
                f"{i['ratio']:.4f}",
            ]
        )
    return head, rows


def rescore_table(results: dict[str, Any]) -> Table:
    """Rescoring time next to one bare UPDATE of the same rows."""
    head = ["backend", "rows", "floor s", "rescore s", "rescore rows/s", "ratio"]
    rows = []
    for backend, s in _sections(results, "rescore"):
        rows.append(
            [
                backend,
                f"{s['rows']:,}",
                f"{s['floor']['seconds']:.3f}",
                f"{s['rescore']['seconds']:.3f}",
                _rate(s["rescore"]["per_second"]),
                _x(s["ratio"]),
            ]
        )
    return head, rows


def _mib(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def rescore_recall_table(results: dict[str, Any]) -> Table:
    """A tenant's recall latency while every memory is rescored, next to without."""
    head = ["backend", "memories", "rows", "idle p50", "p99", "during p50", "p95", "p99"]
    head += ["during n", "errors", "ratio", "rescore s alone", "with recalls"]
    rows = []
    for backend, b in _sections(results, "rescore_recall"):
        idle, during, with_recalls = b["idle"], b["during"], b["rescore_seconds"]
        rows.append(
            [
                backend,
                f"{b['memories']:,}",
                f"{b['rows']:,}",
                _ms(idle["p50"]),
                _ms(idle["p99"]),
                _ms(during["p50"]),
                _ms(during["p95"]),
                _ms(during["p99"]),
                f"{during['samples']:.0f}",
                str(b["error_count"]),
                _x(b["ratio_p99"]),
                f"{b['rescore_seconds_alone']:.3f}",
                "-" if with_recalls is None else f"{with_recalls:.3f}",
            ]
        )
    return head, rows


def context_table(results: dict[str, Any]) -> Table:
    """Context assembly for 200 messages next to the recall inside it."""
    head = ["backend", "memories", "messages", "budget", "max tokens", "recall p50"]
    head += ["assemble p50", "p95", "p99", "ratio", "target p50"]
    rows = []
    for backend, c in _sections(results, "context_assembly"):
        a = c["assemble"]
        rows.append(
            [
                backend,
                f"{c['memories']:,}",
                str(c["messages"]),
                f"{c['budget_tokens']:,}",
                f"{c['max_total_tokens']:,}",
                _ms(c["floor"]["p50"]),
                _ms(a["p50"]),
                _ms(a["p95"]),
                _ms(a["p99"]),
                _x(c["ratio_p50"]),
                f"< {c['target_p50_ms']:.0f} ms " + ("met" if c["meets_target"] else "MISSED"),
            ]
        )
    return head, rows


def chat_proxy_table(results: dict[str, Any]) -> Table:
    """The proxy's CPU before the model server hears of a request, and the first byte
    through the proxy next to straight from the model server."""
    head = ["backend", "memories", "CPU p50", "p95", "pass-through CPU p50", "wall p50"]
    head += ["CPU to first byte p50"]
    head += ["first byte p50", "direct p50", "ratio", "buffered", "target CPU p50"]
    rows = []
    for backend, c in _sections(results, "chat_proxy"):
        cpu = c["cpu_before_upstream"]
        met = "met" if c["meets_target"] else "MISSED"
        rows.append(
            [
                backend,
                f"{c['memories']:,}",
                _ms(cpu["p50"]),
                _ms(cpu["p95"]),
                _ms(c["cpu_passthrough"]["p50"]),
                _ms(c["wall_before_upstream"]["p50"]),
                _ms(c["cpu_to_first_byte"]["p50"]),
                _ms(c["ttfb_proxied"]["p50"]),
                _ms(c["ttfb_direct"]["p50"]),
                _x(c["ttfb_ratio_p50"]),
                str(c["buffered_streams"]),
                f"< {c['target_cpu_ms']:.0f} ms {met}",
            ]
        )
    return head, rows


def flood_table(results: dict[str, Any]) -> Table:
    """One person's recall alone and while another floods the embedding engine and a
    third's long notes are embedded; the flooder's answers; the new memories' vectors."""
    head = ["backend", "memories", "notes", "flood conns", "alone p50", "flood p50", "p95"]
    head += ["ratio", "flooder 200", "429", "5xx", "time-outs", "other"]
    head += ["new with vectors", "vectors s", "target"]
    rows = []
    for backend, f in _sections(results, "flood"):
        fl, seconds = f["flooder"], f["new_vectors_seconds"]
        met = "met" if f["meets_target"] else "MISSED"
        rows.append(
            [
                backend,
                f"{f['store']:,}",
                f"{f['notes']:,}",
                str(f["flood_clients"]),
                _ms(f["alone"]["p50"]),
                _ms(f["under_flood"]["p50"]),
                _ms(f["under_flood"]["p95"]),
                _x(f["ratio_p50"]),
                f"{fl['ok_200']:,}",
                f"{fl['busy_429']:,}",
                f"{fl['server_error_5xx']:,}",
                f"{fl['timeout']:,}",
                f"{fl['other']:,}",
                f"{f['new_with_vectors']}/{f['new_memories']}",
                "-" if seconds is None else f"{seconds:.1f}",
                f"≤ {f['target_ratio']:g}× {met}",
            ]
        )
    return head, rows


def _loads(results: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(backend, section) of every HTTP load: one server process, then several."""
    return [
        (backend, r[key])
        for backend, r in results["backends"].items()
        for key in ("http_load", "http_load_workers")
        if key in r
    ]


def http_load_table(results: dict[str, Any]) -> Table:
    """Requests per second and latency per kind under the load, beside /healthz."""
    head = ["backend", "processes", "clients", "mix req/s", "recall /s", "p50", "p99"]
    head += ["add /s", "p50", "p99", "errors", "healthz /s", "p50", "p99", "ratio"]
    rows = []
    for backend, h in _loads(results):
        rc, add, hz = h["recall"], h["add"], h["healthz"]
        rows.append(
            [
                backend,
                str(h.get("workers", 1)),
                str(h["clients"]),
                _rate(h["requests_per_second"]),
                _rate(rc["per_second"]),
                _ms(rc["p50"]),
                _ms(rc["p99"]),
                _rate(add["per_second"]),
                _ms(add["p50"]),
                _ms(add["p99"]),
                str(h["error_count"]),
                _rate(hz["per_second"]),
                _ms(hz["p50"]),
                _ms(hz["p99"]),
                _x(h["ratio_p50"]),
            ]
        )
    return head, rows


def _cpu_ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def http_cpu_table(results: dict[str, Any]) -> Table:
    """CPU milliseconds per request under the load, per phase, by who spent them."""
    head = ["backend", "processes", "load", "server", "database", "load generator", "total"]
    rows = []
    for backend, h in _loads(results):
        for phase, cpu in h.get("cpu_ms_per_request", {}).items():
            parties = [cpu.get("server"), cpu.get("database"), cpu.get("generator")]
            rows.append(
                [backend, str(h.get("workers", 1)), phase]
                + [_cpu_ms(v) for v in parties]
                + [_cpu_ms(sum(v for v in parties if v is not None))]
            )
    return head, rows


def server_memory_table(results: dict[str, Any]) -> Table:
    """The server's RSS before and after each load, beside what its database holds;
    with several processes, summed over them and their supervisor."""
    head = ["backend", "processes", "memories", "database MiB", "RSS before MiB"]
    head += ["RSS after MiB", "peak RSS MiB"]
    rows = []
    for backend, h in _loads(results):
        m = h["server"]
        rows.append(
            [
                backend,
                str(h.get("workers", 1)),
                f"{m['database_memories']:,}",
                _mib(m["database_bytes"] / 2**20),
                _mib(m["rss_mib_before_load"]),
                _mib(m["rss_mib_after_load"]),
                _mib(m["peak_rss_mib"]),
            ]
        )
    return head, rows


def soak_table(results: dict[str, Any]) -> Table:
    """RSS after each window of the soak, and its growth per 10k requests by half."""
    head = ["backend", "requests", "RSS MiB by window (requests so far)", "errors"]
    head += ["MiB / 10k, 1st half", "MiB / 10k, 2nd half"]
    rows = []
    for backend, s in _sections(results, "soak"):
        points = ", ".join(f"{p['rss_mib']:.0f} ({p['requests']:,})" for p in s["series"])

        def growth(value: float | None) -> str:
            return "-" if value is None else f"{value:+.1f}"

        rows.append(
            [
                backend,
                f"{s['requests']:,}",
                points,
                str(s["errors"]),
                growth(s["growth_mib_per_10k_first_half"]),
                growth(s["growth_mib_per_10k_second_half"]),
            ]
        )
    return head, rows


def load_table(results: dict[str, Any]) -> Table:
    """The bulk load of each measured tenant (filler tenants summed)."""
    head = ["backend", "tenant", "statements", "memories", "merged", "near-dup dropped"]
    head += ["emotion-tagged", "mean chars", "postings", "links", "history", "load s"]
    rows = []
    for backend, r in results["backends"].items():
        measured = [t for t in r["load"] if not t["user_id"].startswith("filler-")]
        filler = [t for t in r["load"] if t["user_id"].startswith("filler-")]
        groups = [(t["user_id"], [t]) for t in measured]
        if filler:
            groups.append((f"{len(filler)} filler tenants", filler))
        for name, loads in groups:

            def total(key: str, loads: list[dict[str, Any]] = loads) -> int:
                return sum(int(t["rows"][key]) for t in loads)

            rows.append(
                [
                    backend,
                    name,
                    f"{sum(t['statements'] for t in loads):,}",
                    f"{total('user_memories'):,}",
                    f"{sum(t['merged_statements'] for t in loads):,}",
                    f"{sum(t['near_duplicates_dropped'] for t in loads):,}",
                    f"{_mean(loads, 'emotion_tagged_share'):.0%}",
                    f"{_mean(loads, 'mean_characters'):.0f}",
                    f"{total('memory_terms'):,}",
                    f"{total('memory_associations'):,}",
                    f"{total('memory_score_history'):,}",
                    f"{sum(t['seconds'] for t in loads):.1f}",
                ]
            )
    return head, rows


def tables(results: dict[str, Any]) -> list[tuple[str, Table]]:
    """Every table with its title."""
    every = [
        ("Recall latency (ms; ratio = p50 / floor p50)", recall_table(results)),
        ("Ingest throughput (ratio = ingest rate / floor rate)", ingest_table(results)),
        ("Rescoring (ratio = rescore time / floor time)", rescore_table(results)),
        (
            "Recall during rescoring (ms; ratio = p99 during / p99 idle)",
            rescore_recall_table(results),
        ),
        (
            "Context assembly (ms; ratio = assemble p50 / recall p50)",
            context_table(results),
        ),
        (
            "Chat proxy (ms; ratio = first byte through the proxy p50 / direct p50)",
            chat_proxy_table(results),
        ),
        (
            "Recall under an embedding flood (ms; ratio = p50 under the flood / p50 alone)",
            flood_table(results),
        ),
        ("HTTP under load (ms; ratio = recall p50 / healthz p50)", http_load_table(results)),
        ("HTTP under load: CPU ms per request", http_cpu_table(results)),
        ("Server memory after the load", server_memory_table(results)),
        ("Server memory over a soak of new words", soak_table(results)),
        ("Bulk load", load_table(results)),
    ]
    # A section no backend measured (a step added later, a partial run) gets no table.
    return [(title, (head, rows)) for title, (head, rows) in every if rows]


def text_table(head: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell."""
    widths = [max(len(str(c)) for c in col) for col in zip(head, *rows, strict=True)]
    lines = ["  ".join(c.rjust(w) for c, w in zip(line, widths, strict=True)) for line in rows]
    header = "  ".join(c.rjust(w) for c, w in zip(head, widths, strict=True))
    return "\n".join([header, "-" * len(header), *lines])


def markdown_table(head: list[str], rows: list[list[str]]) -> str:
    """A GitHub-flavoured table, numbers right-aligned."""
    align = ["---"] * 2 + ["---:"] * (len(head) - 2)
    lines = ["| " + " | ".join(line) + " |" for line in [head, align, *rows]]
    return "\n".join(lines)


def machine_line(results: dict[str, Any]) -> str:
    """Where and how the numbers were measured."""
    m, c = results["machine"], results["config"]
    return (
        f"scale `{results['scale']}`, seed {results['seed']}; {m['cpu_count']} CPUs, "
        f"Python {m['python']}, SQLAlchemy {m['sqlalchemy']}, SQLite {m['sqlite']}, "
        f"PostgreSQL {m['postgresql'] or 'not run'}; every figure is the median of "
        f"{c['repetitions']} repetitions ({c['queries_per_repetition']} recall queries each, "
        f"top {c['top_k']}); the whole run took {results['seconds']:.0f}s"
    )


def render_text(results: dict[str, Any]) -> str:
    """The terminal report."""
    parts = [machine_line(results)]
    for title, (head, rows) in tables(results):
        parts += ["", title, text_table(head, rows)]
    return "\n".join(parts)


def method_markdown(results: dict[str, Any]) -> str:
    """How the figures are made, with every constant taken from the code and config."""
    c = results["config"]
    filler = c["postgresql_total_memories"]
    return f"""## Method

**Data** (bench/data.py, bench/plan.py). Synthetic mixed Chinese and English statements
from `random.Random(seed)`: {data.MIN_CHARS}–{data.MAX_CHARS} characters, topics from a
vocabulary of {len(data.TOPICS)} drawn with Zipf weights 1 / (rank + 1)^{data.ZIPF_EXPONENT};
a share {data.EMOTION_RATE} gets an emotion phrase and {data.REPEAT_RATE} repeats a recent
statement word for word (the service merges it). They span the {HISTORY_DAYS} days before
the bench's fixed service clock. A statement whose term set is a near duplicate
(Jaccard ≥ the service's threshold) of an earlier memory is left out, so that the bulk
load below reproduces the service exactly; the load table shows what was measured.

**Loading** (bench/load.py, bench/replay.py). Tenants are bulk-loaded (executemany on
SQLite, COPY on PostgreSQL) with exactly the rows `MemoryService.add_many` would write:
`tests/bench/test_equivalence.py` compares every table on both databases. Scores are
written by the service's SQL (`scoring_sql.rescore_update`). PostgreSQL is VACUUM ANALYZEd
after loading, as autovacuum would do; {
        f"it holds {filler:,} memories in all: filler tenants of "
        f"{c['filler_tenant']:,} memories, unmeasured, all loaded from one planned tenant"
        if filler
        else "it holds the measured tenants only"
    }.

**Statistics** (bench/measure.py). Every figure is the median over {c["repetitions"]}
repetitions ({c["load_repetitions"]} for the HTTP load). Latency p50/p95/p99 are
computed per repetition ({c["queries_per_repetition"]} queries each for recall, linear
interpolation) and the median over repetitions is reported. Each floor runs
interleaved with what it is compared to, in the same process and database.

**Recall.** `RecallService.recall_memories(top_k={TOP_K})` with `track=False` and
`track=True` as `POST /recall` runs it (`services.recall.tracked.recall_and_track`: the
ranking in a reader, the counting of the hits in a unit of work of its own), and
`POST /v1/users/{{user}}/recall` (`track: false`) through the real app over
`httpx.ASGITransport`; queries come from the same vocabulary. Floor:
`{FLOOR_RECALL_SQL.text}` in a reader (`Database.reader`, as recall ranks: autocommit
on PostgreSQL). Ratio = p50 / floor p50. Where one tenant's recall time goes, statement
by statement and outside the statements, and the least a recall of its queries could cost
(a reader and the BM25 statement, nothing else): `python -m bench.diagnose --tenant 10000`
(bench/diagnose.py); what the pruning of common terms saves and changes:
`python -m bench.pruning --tenant 100000` (bench/pruning.py).

**Ingest.** `MemoryService.add_many` of {c["ingest_batch"]:,} new statements into the
tenant of {c["ingest_tenant"]:,} memories in one unit of work, rolled back after each
repetition (the commit is not timed). Floor: `TextAnalyzer.analyze` of the same texts,
no database. Ratio = ingest rate / floor rate.

**Rescoring.** `services.scoring.jobs.run_rescore` over every row (batches of
{c["rescore_batch_size"]:,}), the clock one hour later at each repetition. Floor:
`{FLOOR_RESCORE_SQL.text}` over the same rows in one transaction, rolled back so that
the job still compares against the real scores. Ratio = rescore time / floor time.

**Context assembly** (bench/context_assembly.py). `ContextService.assemble` for a
200-message conversation (synthetic turns from the same vocabulary, each query as the
last user message) within a 4,000-token budget against the tenant of 10,000 memories (the
largest up to that), rules only (no LLM), recall tracking and memory cards off so the
data stays as loaded. One message scorer serves the whole step, as the server holds one,
so the resent history's per-message analyses (terms, rules, keywords) come from its
caches after the first turn, as in a chat. Floor: the recall inside it (`recall_memories`,
top 10, `track=False`), interleaved. Ratio = assembly p50 / recall p50; target p50 < 100 ms.

**Chat proxy** (bench/chat_proxy.py, bench/proxy_upstream.py). One real server as in
the HTTP load below, its `LLM_BASE_URL` at a loopback OpenAI-compatible model server that
streams a fixed answer, `MESSAGE_SCORE_BACKGROUND=true`. {c["queries_per_repetition"]}
streamed `POST /v1/chat/completions` per repetition for the tenant of 10,000 memories
(the largest up to that; its memories when measured are shown), each a system prompt,
{HISTORY_TURNS} turns and a new question, one at a time, interleaved with the same body
through the proxy with `X-Jarvis-Memory: off` and straight to the model server. CPU: the
server process's CPU time (every thread, from `/proc/<pid>/task/*/schedstat`,
nanoseconds) from just before the request is sent to the moment the model server
receives it, read by the model server; the server is first left until its CPU time
stops moving. Pass-through CPU: the same with memory off (the proxy's HTTP share). Wall:
the same interval in time. CPU to first byte: the same CPU time up to the client's first
byte of the answer's body. First byte: the time until then, through the proxy and
straight. Buffered: streams whose first event the client did not have before the model
server sent the rest (the model server waits for it). Target: CPU p50 <
{TARGET_CPU_MS:g} ms, no stream buffered. It comes last, as each proxied request stores
the person's turn.

**Recall during rescoring** (bench/rescore_recall.py). Tracked recalls
(`track=True`, the API's default) for the tenant of {c["rescore_recall_tenant"]:,}
memories, one at a time, each in its own unit of work, each followed by a pause as long
as itself: first alone for as long as one rescoring run took (at most
{IDLE_CAP_SECONDS:.0f} s, at least {c["queries_per_repetition"]} recalls), then while
`run_rescore` rescores every memory in the same process and database. A recall counts
as "during" when it starts before the run ends. Failed recalls or runs (deadlock, lock
timeout) are counted as errors. Ratio = p99 during / p99 idle; the run's time with the
recalls is shown beside its time alone.

**Recall under an embedding flood** (bench/flood.py). A database of its own (nothing
else in it waits for a vector) and one real server as in the HTTP load below, with
`EMBEDDING_PROVIDER=local` (the bundled model) and its scheduler on, so the embedding
backfill runs as in `jarvis-memory serve`. A person's {c.get("flood_store", 0):,} short
statements and a flooding person's {FLOODER_MEMORIES} are written and embedded first.
Alone: that person's {c.get("flood_recalls", 0)} recalls (short queries, top {TOP_K},
`track: false`), one at a time. Then a flooding client sends recalls of
{LONG_CHARS:,}-character queries for its person on {c.get("flood_clients", 0)}
connections, back to back (it ignores `Retry-After`); a third person's
{c.get("flood_notes", 0)} notes of {LONG_CHARS:,} characters are written in one batch;
the measured person writes {c.get("flood_new", 0)} new memories; once a backfill run has
started, the same recalls again. The flood goes on until the new memories have vectors
(read from the database beside the server; at most {c.get("flood_vector_wait", 0):g} s
after their write). Ratio = p50 under the flood / p50 alone. The flooder's answers are
counted by status; a request unanswered after {FLOOD_TIMEOUT_SECONDS:g} s is a time-out.
Vectors s: from the new memories' write to their last vector. Target: ratio ≤
{TARGET_RATIO:g}×, every new memory embedded, the flooder never answered 5xx nor timed
out. The server, the backfill, the flooder and the load generator share the machine's
CPUs.

**HTTP under load** (bench/http_load.py, bench/traffic.py, bench/server.py). One real
server: `python -m bench.server_main` runs `api.app.create_app` under uvicorn as
`jarvis-memory serve` does (scheduler and auth off, the bench's clock and database) in a
subprocess on a loopback port. {c["load_clients"]} clients, each its own
`httpx.AsyncClient` with one keep-alive connection (new clients for every window, so no
connection sits idle past uvicorn's keep-alive timeout between windows), send one
request at a time, back
to back, for {c["load_seconds"]:g} s: {c["load_recall_share"]:.0%}
`POST /v1/users/{{user}}/recall` (top {TOP_K}, tracked) and the rest
`POST /v1/users/{{user}}/memories` of new statements, each for a measured tenant drawn at
random. Floor: the same load of `GET /healthz`. Each client's first request (opening
its connection) is not timed; requests under way at the deadline are finished and
counted. Mix and floor alternate, {c["load_repetitions"]} repetitions each; a response
≥ 400 or a transport error is an error. The load generator runs in the bench process
on the same machine. Ratio = recall p50 / healthz p50. On PostgreSQL the same load
runs again against {c.get("load_workers", 1)} server processes, as
`jarvis-memory serve --workers {c.get("load_workers", 1)}` runs them (api/server/workers.py: each
process listens on the port with a socket of its own, `SO_REUSEPORT`, so the kernel
spreads the clients' connections over them); the target is checked on one process, the
row with several is reported beside it. On a machine with few cores those processes,
the database and the load generator share the CPUs.

**CPU per request under the load** (bench/cpu.py). Over each window, the CPU time
(user + system, from `/proc`) of the server's processes, of every PostgreSQL process on
the machine (SQLite works inside the server's process) and of the bench process (the
load generator), divided by the requests the window completed, summed over the
repetitions. With busy clients in a closed loop, the ratio of the mix's latency to the
floor's follows the ratio of these totals: it says where a recall's time goes.

**Server memory.** The server process's VmRSS (and VmHWM, its peak) from
`/proc/<pid>/status` once it is ready and again after the load, beside the memories
and the on-disk size of the database it serves (`pg_database_size`, or the SQLite file
and its WAL). With several processes, summed over the workers, their supervisor and
multiprocessing's resource tracker.

**Soak** (bench/soak.py). One server as above; {c.get("soak_windows", 0)} windows of
{c.get("soak_seconds", 0):g} s of {c.get("soak_clients", 0)} clients sending adds (50%),
recalls (35%, untracked) and message scoring (15%), every text with words no earlier
request used, so every cache keyed by a word or a text meets only new keys. The
server's VmRSS after each window, against the requests served so far; growth per 10k
requests over the first and the second half of the windows (a cache that fills, then
evicts, grows in the first half only; a leak grows in both). Every per-text cache is
bounded in the characters it keeps as well as in entries (services/core/text_cache.py).
"""


def render_markdown(results: dict[str, Any]) -> str:
    """docs/benchmarks.md: a generated header, the method, then the tables."""
    parts = [
        "<!-- Generated by `make bench` (python -m bench). Do not edit by hand. -->",
        "# Benchmarks",
        "",
        "_Generated by `make bench`; do not edit by hand. Regenerate with "
        f"`make bench SCALE={results['scale']}`._",
        "",
        machine_line(results) + ".",
        "",
        method_markdown(results).strip(),
    ]
    for title, (head, rows) in tables(results):
        parts += ["", f"## {title}", "", markdown_table(head, rows)]
    return "\n".join(parts) + "\n"


def write_json(results: dict[str, Any], path: Path) -> None:
    """Results as indented JSON (written whole, then moved into place)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    tmp.replace(path)


def write_markdown(results: dict[str, Any], path: Path) -> None:
    """docs/benchmarks.md."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_markdown(results), encoding="utf-8")
