"""python -m bench server-cost: what one answer costs the server, request by request.

    python -m bench server-cost --cpu-samples 200                 # starts its own app on loopback
    python -m bench server-cost --cpu-samples 50 --url http://127.0.0.1:7860 --modes cypher vector

Sequential requests (one at a time, so nothing else runs on the server) to `/diagnose` (a CHD7 case)
and `/ask` ("Which genes cause CHARGE syndrome?") in each retrieval mode, with the grounded writer,
through the light HTTP client. For each, the server's CPU time (psutil: the app, its children and a
graph server on this machine it attached to, read before and after the request) and the wall time;
reported as median and p95 per endpoint and mode. The app's own timings output (the pipeline's
stages and the app's formatting, wall milliseconds measured inside the handler) gives the breakdown
of a request from the server's side; what the server spends beyond the handler (Gradio's pre- and
post-processing, serialisation, the event stream) is the CPU median less the handler's total. A few
requests of each kind first warm the caches and are not counted. Only loopback addresses.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

import psutil

from bench.load import NO_TEXT, SETTINGS, WORKLOAD
from bench.load_app import (
    REPO_ROOT,
    START_TIMEOUT_S,
    check_loopback,
    cpu_seconds,
    graph_servers,
    healthy,
    serving_process,
    start_app,
    stop_app,
    wait_for_vector_index,
)
from bench.load_client import HttpClient, call
from bench.runtime import percentiles
from fpkg.errors import BenchError

WARM_UP = 3
QUESTION = "Which genes cause CHARGE syndrome?"
# where the timings are among each endpoint's outputs (app/ui.py: answer, notices, [ranked,] triples,
# Cypher, picture, timings[, confidence])
TIMINGS_OUTPUT = {"/diagnose": 6, "/ask": 5}


def requests_for(mode: str) -> list[tuple[str, tuple]]:
    diagnose = next(arguments for api, arguments in WORKLOAD if api == "/diagnose")
    fields = diagnose[:-len(SETTINGS) - len(NO_TEXT)]
    return [("/diagnose", (*fields, mode, "grounded", 0.0, *NO_TEXT)), ("/ask", (QUESTION, mode, "grounded", 0.0))]


def measure(client: HttpClient, process: psutil.Process, api: str, arguments: tuple, samples: int,
            timeout_s: float, servers: list[psutil.Process] = ()) -> dict:
    """`samples` sequential requests: the server's CPU and the wall time of each, and the median of
    each stage of the app's timings."""
    for _ in range(WARM_UP):
        call(client, api, arguments, timeout_s)
    cpu_ms, wall_ms, stages = [], [], {}
    for _ in range(samples):
        before, started = cpu_seconds(process, servers), time.perf_counter()
        outputs = call(client, api, arguments, timeout_s)
        wall_ms.append(1000 * (time.perf_counter() - started))
        cpu_ms.append(1000 * (cpu_seconds(process, servers) - before))
        for stage, ms in (outputs[TIMINGS_OUTPUT[api]] or {}).items():
            stages.setdefault(stage, []).append(ms)
    breakdown = {stage: round(statistics.median(values), 1) for stage, values in stages.items()}
    cpu = percentiles(cpu_ms)
    handler = breakdown.get("total")
    return {"server_cpu_ms": cpu, "wall_ms": percentiles(wall_ms), "handler_ms": breakdown,
            "beyond_handler_cpu_ms": round(cpu["p50"] - handler, 1) if handler is not None else None}


def run(url: str, process: psutil.Process, modes: list[str], samples: int, timeout_s: float) -> dict:
    if samples < 1:
        raise BenchError("--cpu-samples must be at least 1")
    if "vector" in modes:
        wait_for_vector_index(url, timeout_s)
    client = HttpClient(url)
    servers = graph_servers(process)
    try:
        measured = {f"{api} {mode}": measure(client, process, api, arguments, samples, timeout_s, servers)
                    for mode in modes for api, arguments in requests_for(mode)}
    finally:
        client.close()
    return {"url": url, "samples": samples, "modes": modes, "app_pid": process.pid,
            "graph_server_pids": [server.pid for server in servers], "requests": measured}


def summary(result: dict) -> str:
    lines = [f"bench server-cost: {result['samples']} sequential requests each against {result['url']} "
             f"(grounded writer; CPU of the app, its children and {len(result['graph_server_pids'])} graph "
             "server(s) it attached to)"]
    for name, measured in result["requests"].items():
        cpu, wall = measured["server_cpu_ms"], measured["wall_ms"]
        stages = ", ".join(f"{stage} {ms}" for stage, ms in measured["handler_ms"].items())
        lines += [f"  {name}: server CPU p50 {cpu['p50']:.1f} ms, p95 {cpu['p95']:.1f} ms; "
                  f"wall p50 {wall['p50']:.1f} ms",
                  f"    in the handler (wall ms, medians): {stages}",
                  f"    beyond the handler (Gradio, serialisation, the stream): {measured['beyond_handler_cpu_ms']} ms"]
    return "\n".join(lines)


def handle(args: argparse.Namespace, context) -> tuple[str, dict, str]:
    app = None
    if args.url:
        url = check_loopback(args.url)
        if not healthy(url):
            raise BenchError(f"no app answers at {url}/healthz")
        process = serving_process(url)
        if process is None:
            raise BenchError(f"the process serving {url} cannot be seen: its CPU cannot be read")
    else:
        log_path = REPO_ROOT / "artifacts" / "bench-server-cost-app.log"
        print(f"starting python -m app on loopback (log: {log_path})", file=sys.stderr)
        url, app = start_app(log_path, args.start_timeout_s)
        process = psutil.Process(app.pid)
    try:
        result = run(url, process, args.modes, args.cpu_samples, args.request_timeout_s)
    finally:
        if app is not None:
            stop_app(app)
    return f"{args.cpu_samples}-{'-'.join(args.modes)}", result, summary(result)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("server-cost", parents=[common], help="the server's CPU per request, by stage",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cpu-samples", type=int, default=200, help="requests per endpoint and mode (default 200)")
    parser.add_argument("--modes", nargs="+", choices=("cypher", "vector"), default=["cypher", "vector"],
                        help="retrieval modes (default both)")
    parser.add_argument("--url", help="a running app on loopback (default: start one with python -m app)")
    parser.add_argument("--request-timeout-s", type=float, default=300.0, help="longest wait for one answer")
    parser.add_argument("--start-timeout-s", type=float, default=START_TIMEOUT_S,
                        help="longest wait for a started app to answer /healthz")
    parser.set_defaults(handler=handle)
