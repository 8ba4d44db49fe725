"""python -m bench load: N concurrent users, each making M requests to the app.

    python -m bench load --users 16 --requests 300           # starts its own app on loopback
    python -m bench load --users 4 --requests 10 --url http://127.0.0.1:7860 --json
    python -m bench load --users 16 --requests 300 --history   # signed-in users, history on the server
    python -m bench load --users 4 --requests 10 --client gradio   # through gradio_client instead

Each user calls the named endpoints `/diagnose` and `/ask` in turn (a fixed mix of cases and
questions, every user starting at a different one), through a light HTTP client on Gradio's own
API (bench/load_client.py; `--client gradio`: one `gradio_client.Client` per user). The run is
bounded: at most users × requests requests, each waited for at most --request-timeout-s, and no
new request after --max-seconds. Reports errors (with samples), latency p50/p95, throughput, the
server's CPU per request (psutil over the app and its children: it does not depend on how busy the
generator is) and the generator's own, and the app's resident memory: at the start, after a
warm-up (every user making each request of the mix once, concurrently: the baseline for growth),
every --sample-every requests (a plot, load-memory-UxR.png, and the growth over the run's second
half: near 0 on a plateau) and at the end. With --history, the app it starts keeps history on the
server (FPKG_HISTORY=server, a state folder of its own): each user signs in with a password first,
every answer is written to SQLite, and the result counts the entries written. Only loopback addresses.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from bench.load_app import (
    REPO_ROOT,
    START_TIMEOUT_S,
    SignedInUsers,
    check_loopback,
    cpu_seconds,
    graph_servers,
    healthy,
    memory_mb,
    own_cpu_seconds,
    serving_process,
    start_app,
    stop_app,
    wait_for_vector_index,
)
from bench.load_client import CLIENTS, call, make_client, request_failures
from bench.results import results_dir
from bench.runtime import percentiles
from fpkg.errors import BenchError

__all__ = ["check_loopback", "handle_load", "run_load"]
MAX_ERROR_SAMPLES = 10
SAMPLE_EVERY = 100  # requests between two readings of the app's memory (--sample-every)
_CASE = dict(age="5", sex="female", ethnicity="Turkish", gene="CHD7", variant="c.2443-2A>G",
             phenotypes=["Wide nasal bridge", "Posteriorly rotated ears", "Chorioretinal coloboma"],
             selective=False, option_a="", option_b="", option_c="", option_d="")
_SELECTIVE = dict(_CASE, gene="FGFR2", variant="", phenotypes=["Proptosis", "Hypertelorism", "Midface retrusion"],
                  selective=True, option_a="Crouzon syndrome", option_b="CHARGE syndrome",
                  option_c="Noonan syndrome", option_d="Kabuki syndrome")
SETTINGS = ("cypher", "grounded", 0.0)  # mode, backend, temperature
NO_TEXT = ("", "")  # /diagnose's description and phenopacket (the raw HTTP API takes every input)
# (api name, arguments): the mix each user cycles through.
WORKLOAD = [
    ("/diagnose", (*_CASE.values(), *SETTINGS, *NO_TEXT)),
    ("/ask", ("What facial phenotypes are associated with Crouzon syndrome?", *SETTINGS)),
    ("/diagnose", (*_SELECTIVE.values(), *SETTINGS, *NO_TEXT)),
    ("/ask", ("What diseases are associated with gene CHD7?", *SETTINGS)),
]


@dataclass
class Tally:
    """What the users saw, shared between their threads."""

    latencies: dict[str, list[float]] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    samples: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    process: psutil.Process | None = None  # the app, whose memory is read every `sample_every` requests
    sample_every: int = SAMPLE_EVERY
    memory: list[dict[str, float]] = field(default_factory=list)
    done: int = 0

    def ok(self, api: str, seconds: float) -> None:
        with self.lock:
            self.latencies.setdefault(api, []).append(seconds)
            self._count()

    def failed(self, api: str, error: BaseException) -> None:
        with self.lock:
            kind = type(error).__name__
            self.errors[kind] = self.errors.get(kind, 0) + 1
            if len(self.samples) < MAX_ERROR_SAMPLES:
                self.samples.append(f"{api}: {kind}: {str(error)[:300]}")
            self._count()

    def _count(self) -> None:
        self.done += 1
        if self.done % self.sample_every == 0 and (reading := memory_mb(self.process)):
            self.memory.append({"requests": self.done, **reading})


def run_user(url: str, user: int, requests: int, deadline: float, request_timeout_s: float, tally: Tally,
             headers: dict[str, str] | None = None, client_kind: str = "http") -> int:
    """One user's session; returns how many requests it made."""
    failures = request_failures()
    try:
        client = make_client(client_kind, url, headers)
    except failures as e:  # the user could not even open the app: one error, and it gives up
        tally.failed("connect", e)
        return 0
    made = 0
    for i in range(requests):
        if time.monotonic() > deadline:
            break
        api, arguments = WORKLOAD[(user + i) % len(WORKLOAD)]
        started = time.perf_counter()
        made += 1
        try:
            call(client, api, arguments, request_timeout_s)
        except failures as e:
            tally.failed(api, e)
            continue
        tally.ok(api, time.perf_counter() - started)
    client.close()
    return made


def warm_up(url: str, users: int, request_timeout_s: float, signed_in: SignedInUsers | None = None,
            client_kind: str = "http") -> int:
    """Every user makes each request of the mix once, all at the same time, before memory is
    measured: what the first requests load (the embedder, plotting, one session per user, the
    server's worker threads) is not growth. Returns the number of warm-up requests."""
    def one_pass(user: int) -> None:
        try:
            client = make_client(client_kind, url, signed_in.headers(user) if signed_in else None)
        except request_failures() as e:
            raise BenchError(f"a warm-up client could not connect: {type(e).__name__}: {e}") from e
        try:
            for api, arguments in WORKLOAD:
                call(client, api, arguments, request_timeout_s)
        except request_failures() as e:
            raise BenchError(f"a warm-up request to {api} failed: {type(e).__name__}: {e}") from e
        finally:
            client.close()

    with concurrent.futures.ThreadPoolExecutor(users, thread_name_prefix="warm-up") as pool:
        list(pool.map(one_pass, range(users)))
    return users * len(WORKLOAD)


def run_load(url: str, users: int, requests: int, *, max_seconds: float, request_timeout_s: float,
             process: psutil.Process | None = None, sample_every: int = SAMPLE_EVERY,
             signed_in: SignedInUsers | None = None, client_kind: str = "http") -> dict:
    if users < 1 or requests < 1 or sample_every < 1:
        raise BenchError("--users, --requests and --sample-every must be at least 1")
    process = process or serving_process(url)
    wait_for_vector_index(url, request_timeout_s)
    memory_at_start = memory_mb(process)
    if signed_in:
        signed_in.sign_in(url)
    warm_up_requests = warm_up(url, users, request_timeout_s, signed_in, client_kind)
    memory_before = memory_mb(process)
    tally = Tally(process=process, sample_every=sample_every)
    servers = graph_servers(process) if process else []  # an attached graph server's CPU counts too
    server_cpu, own_cpu = cpu_seconds(process, servers), own_cpu_seconds()
    started = time.perf_counter()
    deadline = time.monotonic() + max_seconds
    with concurrent.futures.ThreadPoolExecutor(users, thread_name_prefix="user") as pool:
        made = sum(pool.map(lambda u: run_user(url, u, requests, deadline, request_timeout_s, tally,
                                               signed_in.headers(u) if signed_in else None, client_kind),
                            range(users)))
    wall_s = time.perf_counter() - started
    server_cpu_after, own_cpu_after = cpu_seconds(process, servers), own_cpu_seconds()
    memory_after = memory_mb(process)
    all_latencies = [s for values in tally.latencies.values() for s in values]
    errors = sum(tally.errors.values())
    growth = None
    if memory_before and memory_after:
        growth = round(100 * (memory_after["app"] / memory_before["app"] - 1), 2)
    return {
        "url": url, "users": users, "requests_per_user": requests, "requests": made, "planned": users * requests,
        "ok": len(all_latencies), "errors": errors, "errors_by_type": tally.errors, "error_samples": tally.samples,
        "stopped_by_time": made < users * requests,
        "latency_s": percentiles(all_latencies),
        "latency_s_by_endpoint": {api: percentiles(values) for api, values in sorted(tally.latencies.items())},
        "wall_s": round(wall_s, 2), "throughput_rps": round(made / wall_s, 3) if wall_s else None,
        "client": client_kind,
        "server_cpu_ms_per_request": per_request_ms(server_cpu, server_cpu_after, made),
        "generator_cpu_ms_per_request": per_request_ms(own_cpu, own_cpu_after, made),
        "graph_server_pids": [server.pid for server in servers],
        "warm_up_requests": warm_up_requests,
        "memory_mb": {"at_start": memory_at_start, "before": memory_before, "after": memory_after,
                      "growth_pct": growth, "samples": tally.memory, "late_growth_pct": late_growth(tally.memory)},
        "app_pid": process.pid if process else None, "sample_every": sample_every,
        "history_entries": signed_in.entries() if signed_in else None,
    }


def per_request_ms(before: float | None, after: float | None, requests: int) -> float | None:
    """CPU milliseconds per request between two readings (None when the process was not visible)."""
    if before is None or after is None or not requests:
        return None
    return round(1000 * (after - before) / requests, 1)


def late_growth(samples: list[dict[str, float]]) -> float | None:
    """Growth of the app's RSS over the second half of the run (%): near 0 on a plateau."""
    if len(samples) < 4:
        return None
    middle, last = samples[len(samples) // 2]["app"], samples[-1]["app"]
    return round(100 * (last / middle - 1), 2)


def plot_memory(result: dict, path: Path) -> Path | None:
    """The app's RSS against requests served, with the warm-up baseline."""
    samples = result["memory_mb"]["samples"]
    if not samples:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.plot([s["requests"] for s in samples], [s["app"] for s in samples], marker=".", label="app RSS")
    before = result["memory_mb"]["before"]
    if before:
        ax.axhline(before["app"], color="grey", linestyle="--", linewidth=1, label="after the warm-up")
        ax.axhline(before["app"] * 1.1, color="red", linestyle=":", linewidth=1, label="+10 %")
    ax.set_xlabel("requests served"), ax.set_ylabel("MB"), ax.legend(loc="lower right", fontsize=8)
    ax.set_title(f"{result['users']} users, {result['requests']} requests")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def summary(result: dict) -> str:
    latency, memory = result["latency_s"], result["memory_mb"]
    lines = [f"bench load: {result['users']} users x {result['requests_per_user']} requests against {result['url']}",
             f"  requests {result['requests']} (ok {result['ok']}, errors {result['errors']})"
             + (" - stopped by --max-seconds" if result["stopped_by_time"] else ""),
             f"  latency p50 {latency.get('p50', '-')} s, p95 {latency.get('p95', '-')} s, "
             f"max {latency.get('max', '-')} s; throughput {result['throughput_rps']} req/s over {result['wall_s']} s",
             f"  CPU per request: the server {result['server_cpu_ms_per_request']} ms (the app, its children and "
             f"{len(result['graph_server_pids'])} graph server(s) it attached to), "
             f"the load generator ({result['client']} client) {result['generator_cpu_ms_per_request']} ms"]
    if memory["before"] and memory["after"]:
        lines.append(f"  app memory (RSS) {memory['at_start']['app']} MB at the start, after the warm-up "
                     f"{memory['before']['app']} MB -> {memory['after']['app']} MB "
                     f"({memory['growth_pct']:+.2f} %); with the graph server {memory['before']['app_and_children']}"
                     f" -> {memory['after']['app_and_children']} MB")
        if memory.get("late_growth_pct") is not None:
            lines.append(f"  over the second half of the run: {memory['late_growth_pct']:+.2f} % "
                         f"({len(memory['samples'])} readings, one every {result['sample_every']} requests)")
    else:
        lines.append("  app memory: not visible (no process found listening on the URL's port)")
    if result.get("history_entries") is not None:
        lines.append(f"  history on the server: {result['history_entries']} entries written "
                     f"(for {result['ok'] + result['warm_up_requests']} answers)")
    lines += [f"  error: {sample}" for sample in result["error_samples"]]
    return "\n".join(lines)


def handle_load(args: argparse.Namespace, context) -> tuple[str, dict, str]:
    process, signed_in, state = None, None, None
    if args.url:
        if args.history:
            raise BenchError("--history starts an app of its own with history on the server; drop --url")
        url = check_loopback(args.url)
        if not healthy(url):
            raise BenchError(f"no app answers at {url}/healthz")
    else:
        if args.history:
            state = tempfile.TemporaryDirectory(prefix="bench-load-state-")
            signed_in = SignedInUsers.create(Path(state.name), args.users)
        log_path = REPO_ROOT / "artifacts" / "bench-load-app.log"
        print(f"starting python -m app on loopback (log: {log_path})", file=sys.stderr)
        url, process = start_app(log_path, args.start_timeout_s, signed_in.app_env() if signed_in else None)
    try:
        result = run_load(url, args.users, args.requests, max_seconds=args.max_seconds,
                          request_timeout_s=args.request_timeout_s, sample_every=args.sample_every,
                          process=psutil.Process(process.pid) if process else None, signed_in=signed_in,
                          client_kind=args.client)
    finally:
        if process is not None:
            stop_app(process)
        if state is not None:
            state.cleanup()
    result["started_app"] = process is not None
    plotted = plot_memory(result, results_dir(args.results_dir) / f"load-memory-{args.users}x{args.requests}.png")
    result["plot"] = str(plotted) if plotted else None
    return f"{args.users}x{args.requests}", result, summary(result)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("load", parents=[common], help="concurrent users against the app",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=16, help="concurrent users (default 16)")
    parser.add_argument("--requests", type=int, default=30, help="requests per user (default 30)")
    parser.add_argument("--url", help="a running app on loopback (default: start one with python -m app)")
    parser.add_argument("--max-seconds", type=float, default=1800.0,
                        help="no new request after this many seconds (default 1800)")
    parser.add_argument("--request-timeout-s", type=float, default=300.0,
                        help="longest wait for one answer, queueing included (default 300)")
    parser.add_argument("--sample-every", type=int, default=SAMPLE_EVERY,
                        help="read the app's memory every N requests into the result and its plot "
                             f"(default {SAMPLE_EVERY})")
    parser.add_argument("--client", choices=CLIENTS, default="http",
                        help="http: a light httpx client on Gradio's HTTP API (default); gradio: gradio_client")
    parser.add_argument("--history", action="store_true",
                        help="start the app with history on the server and every user signed in")
    parser.add_argument("--start-timeout-s", type=float, default=START_TIMEOUT_S,
                        help="longest wait for a started app to answer /healthz")
    parser.set_defaults(handler=handle_load)
