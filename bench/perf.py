"""python -m bench perf: where the time goes, how fast it starts, how much memory, how it scales.

    python -m bench perf [--limit N] [--vector-limit N] [--refit-questions N] [--no-cold]
                         [--no-scaling] [--scale-factors 5,10] [--scale-limit N] [--json]

- per stage, median and p95 over the Publication set (with and without options): NER (the
  question parse), linking, Cypher retrieval (the diagnosis queries), vector retrieval,
  ranking, generation and the whole diagnose, from the pipeline's own `timings_ms`;
- cold start (a subprocess on a fresh cache folder: the graph is built) and restart from
  the snapshot (a second subprocess on that folder), each to its first answer;
- peak memory of this process (one pipeline), of the start and scaling subprocesses and of the FalkorDB
  server;
- the paper's vector retriever, a GLEE refit on the whole graph per question, timed beside our vector
  retrieval with the same links (as `python -m bench vector-speed`, in a subprocess of its own), and the ratio;
- scaling (bench/scaling.py, in a subprocess of its own: the copies take gigabytes): the same queries on
  FPKG, FPKG + HPO, and 5× and 10× copies.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench import diagnosis, scaling
from bench.domain import read_domain
from bench.results import variant_name
from bench.runtime import DOMAIN_QA, PUBLICATION, PUBLICATION_OPEN, dataset, peak_rss_mb, percentiles, server_memory_mb
from fpkg.errors import BenchError

STAGES = ("ner", "linking", "queries", "vector_retrieval", "ranking", "generation", "total")
STAGE_NAMES = {"ner": "NER (question parse)", "linking": "entity linking", "queries": "Cypher retrieval",
               "vector_retrieval": "vector retrieval", "ranking": "ranking", "generation": "generation",
               "total": "diagnose, end to end"}
DIAGNOSE_P50_TARGET_MS = 20
BENCH_PEAK_TARGET_MB = 1500
REFIT_RATIO_TARGET = 100


def stage_latencies(items: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Percentiles per stage over the items' `timings_ms` (stages a mode does not run are left out)."""
    out = {}
    for stage in STAGES:
        values = [i["timings_ms"][stage] for i in items if stage in i["timings_ms"]]
        if values:
            out[stage] = percentiles(values)
    return out


def run_stages(pipeline, questions: list[diagnosis.Question], vector_questions: list[diagnosis.Question]) -> dict:
    """Diagnosis runs whose items carry the timings: cypher mode on all, vector mode on a subset. Timed once
    the negation reader has loaded (in the background after the start: its import would be timed too)."""
    if pipeline.warming is not None:
        pipeline.warming.join()
    diagnosis.diagnose_one(pipeline, questions[0], mode="cypher", backend=None)  # warm caches
    runs = {"cypher": diagnosis.run(pipeline, questions, mode="cypher", source="perf")["items"]}
    if vector_questions:
        pipeline.retriever("vector")  # the index loads (or is built) here, outside the timings
        diagnosis.diagnose_one(pipeline, vector_questions[0], mode="vector", backend=None)
        runs["vector"] = diagnosis.run(pipeline, vector_questions, mode="vector", source="perf")["items"]
    return runs


def glee_baseline(settings, questions: list[str], refit_questions: int) -> dict[str, Any]:
    """`bench vector-speed`'s measurement: our vector retrieval and the per-question refit, same links, in a
    subprocess of its own (a refit of the whole graph takes hundreds of MB on top of the pipeline's)."""
    out = run_child("glee_child", {"questions": questions, "refit_questions": refit_questions},
                    env=settings_env(settings))
    out["target_ratio"] = REFIT_RATIO_TARGET
    return out


def glee_child() -> None:
    """Entry point of the GLEE subprocess: the store and the cached vector index (no pipeline), then
    `bench vector-speed`'s measurement, as JSON with its peak memory."""
    from bench.runtime import limit_threads
    from bench.vector_speed import measure
    from fpkg.config import Settings
    from graphstore.store import open_store
    from retrieval.vector.index import VectorIndex

    asked = json.loads(os.environ["BENCH_CHILD_ARGS"])
    limit_threads(int(os.environ.get("BENCH_TORCH_THREADS", "1")))
    settings = Settings.from_env()
    store = open_store(settings)
    try:
        out = measure(store, VectorIndex.load_or_build(store, settings.cache_dir), asked["questions"],
                      refit_questions=asked["refit_questions"])
    finally:
        store.close()
    out["peak_rss_mb"] = peak_rss_mb()
    print(json.dumps(out))


# ---- starts in a subprocess --------------------------------------------------------------

STAGES_SHOWN = 6  # the slowest start-up stages in the summary (all are in the JSON)


def child() -> None:
    """Entry point of a start subprocess: start the pipeline, answer one question, print JSON."""
    from bench.runtime import limit_threads, start_pipeline
    from fpkg.config import Settings

    limit_threads(int(os.environ.get("BENCH_TORCH_THREADS", "1")))
    started = time.perf_counter()
    settings = Settings.from_env()
    pipeline = start_pipeline(settings)
    ready = time.perf_counter() - started
    question = diagnosis.read_questions(dataset(settings, PUBLICATION), limit=1)[0]
    diagnosis.diagnose_one(pipeline, question, mode="cypher", backend="grounded")
    first = time.perf_counter() - started
    report = pipeline.build_report
    out = {"ready_s": round(ready, 2), "first_answer_s": round(first, 2),
           "graph_built": bool(report and not report.skipped), "build_seconds": report.seconds if report else {},
           "peak_rss_mb": peak_rss_mb(),
           "server_rss_mb": server_rss_mb(pipeline.store),
           "stages_s": pipeline.start_stages}
    pipeline.close()
    print(json.dumps(out))


def scaling_child() -> None:
    """Entry point of the scaling subprocess: its own pipeline (a restart), the graphs, the timings,
    and its peak memory, as JSON."""
    from bench.runtime import limit_threads, start_pipeline
    from fpkg.config import Settings

    asked = json.loads(os.environ["BENCH_CHILD_ARGS"])
    limit_threads(int(os.environ.get("BENCH_TORCH_THREADS", "1")))
    pipeline = start_pipeline(Settings.from_env())
    settings, limit = pipeline.settings, asked["limit"]
    questions = diagnosis.read_questions(dataset(settings, PUBLICATION), limit=limit)
    open_questions = diagnosis.read_questions(dataset(settings, PUBLICATION_OPEN), limit=limit)
    cases = [pipeline.parse_question(q.text)[0] for q in questions + open_questions]
    asks = [q.question for q in read_domain(dataset(settings, DOMAIN_QA), limit=max(limit // 4, 1))]
    out = scaling.measure(pipeline, cases, asks, factors=tuple(asked["factors"]))
    out["peak_rss_mb"] = peak_rss_mb()
    pipeline.close()
    print(json.dumps(out))


def run_child(entry: str, args: dict[str, Any] | None = None, env: dict[str, str] | None = None,
              timeout_s: float = 3600) -> dict[str, Any]:
    """`bench.perf.<entry>()` in a subprocess; the JSON it prints last."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", f"from bench.perf import {entry}; {entry}()"],
                          env={**os.environ, **(env or {}), "BENCH_CHILD_ARGS": json.dumps(args or {})},
                          cwd=Path(__file__).resolve().parent.parent, capture_output=True, text=True,
                          timeout=timeout_s)
    if done.returncode != 0:
        raise BenchError(f"the {entry} subprocess failed ({done.returncode}):\n{done.stderr[-2000:]}")
    out = json.loads(done.stdout.strip().splitlines()[-1])
    out["process_s"] = round(time.perf_counter() - started, 2)  # with the interpreter and imports
    return out


def settings_env(settings) -> dict[str, str]:
    """The environment a subprocess reads the same data, cache and graph from (this process's settings may
    not come from its environment: tests make them in code)."""
    return {"FPKG_DATA_DIR": str(settings.data_dir), "FPKG_CACHE_DIR": str(settings.cache_dir),
            "FPKG_GRAPH_NAME": settings.graph_name, "FPKG_WITH_HPO": "1" if settings.with_hpo else "0"}


def start_subprocess(cache_dir: Path, timeout_s: float = 900) -> dict[str, Any]:
    env = {**os.environ, "FPKG_CACHE_DIR": str(cache_dir)}
    env.pop("FALKORDB_URL", None)  # the embedded server of that folder, not a shared one
    return run_child("child", env=env, timeout_s=timeout_s)


def starts(keep_dir: bool = False) -> dict[str, Any]:
    """Cold start on a fresh cache folder, then a restart from the snapshot it left."""
    folder = Path(tempfile.mkdtemp(prefix="fpkg-cold-"))
    try:
        return {"cold": start_subprocess(folder), "restart": start_subprocess(folder), "cache_dir": str(folder)}
    finally:
        if not keep_dir:
            shutil.rmtree(folder, ignore_errors=True)


def server_rss_mb(store) -> float | None:
    """Resident memory of the embedded FalkorDB server behind `store`, as the server reports it."""
    server = getattr(store, "server", None)
    return server_memory_mb(server) if server is not None else None


# ---- the command -------------------------------------------------------------------------

def run(pipeline, *, limit: int | None = None, vector_limit: int = 30, refit_questions: int = 1,
        cold: bool = True, scaling_factors: tuple[int, ...] = (5, 10), scale_limit: int = 30,
        do_scaling: bool = True, stage_items: dict[str, list] | None = None) -> dict[str, Any]:
    """`stage_items` ({mode: diagnosis items}) reuses diagnosis runs already made (bench all)."""
    settings = pipeline.settings
    questions = diagnosis.read_questions(dataset(settings, PUBLICATION), limit=limit)
    open_questions = diagnosis.read_questions(dataset(settings, PUBLICATION_OPEN), limit=limit)
    both = questions + open_questions
    out: dict[str, Any] = {"questions": len(both), "targets": {"diagnose_p50_ms": DIAGNOSE_P50_TARGET_MS,
                                                               "bench_peak_rss_mb": BENCH_PEAK_TARGET_MB,
                                                               "refit_ratio": REFIT_RATIO_TARGET,
                                                               "scaling_10x_vs_fpkg": 2.0}}
    runs = stage_items or run_stages(pipeline, both, both[:vector_limit] if vector_limit else [])
    out["stages"] = {mode: stage_latencies(items) for mode, items in runs.items()}
    if refit_questions or vector_limit:
        out["glee_baseline"] = glee_baseline(settings, [q.text for q in questions][:max(vector_limit, 5)],
                                             refit_questions)
    if do_scaling:  # in a process of its own: the copies take gigabytes, and this process holds one pipeline
        try:
            out["scaling"] = run_child("scaling_child", {"limit": scale_limit, "factors": list(scaling_factors)},
                                       env=settings_env(settings))
        except BenchError as e:  # e.g. a query past its time limit on a 10x copy: the rest still stands
            out["scaling_failed"] = str(e).splitlines()[-1]
    if cold:
        out["starts"] = starts()
    out["memory"] = {"bench_peak_rss_mb": peak_rss_mb(),
                     "falkordb_server_rss_mb": server_rss_mb(pipeline.store)}
    return out


def summary(result: dict[str, Any]) -> str:
    lines = [f"performance over {result['questions']} Publication-set questions (ms: p50 / p95)"]
    for mode, stages in result["stages"].items():
        lines.append(f"  {mode} mode:")
        for stage, p in stages.items():
            lines.append(f"    {STAGE_NAMES.get(stage, stage):<24} {p['p50']:>9.1f} / {p['p95']:>9.1f}   (n={p['n']})")
    glee = result.get("glee_baseline")
    if glee and "refit_ms" in glee:
        lines.append(f"  GLEE refit per question (paper): p50 {glee['refit_ms']['p50'] / 1000:.1f} s over "
                     f"{glee['refit_ms']['n']}; our vector retrieval p50 {glee['vector_ms']['p50']:.1f} ms; "
                     f"ratio {glee['ratio_p50']:.0f}x (target >= {REFIT_RATIO_TARGET}x)")
    scale = result.get("scaling")
    if "scaling_failed" in result:
        lines.append(f"  scaling: failed ({result['scaling_failed']})")
    if scale:
        lines.append("  scaling (diagnose p50 / p95 ms, template ask p50 ms):")
        for row in scale["rows"]:
            loaded = f"  (loaded in {row['load_s']} s)" if row["load_s"] else ""
            lines.append(f"    {row['graph']:<16} {row['nodes'] or 0:>9} nodes {row['relationships'] or 0:>9} rels  "
                         f"{row['diagnose_ms']['p50']:>7.1f} / {row['diagnose_ms']['p95']:>7.1f}  "
                         f"{row['ask_ms']['p50']:>6.1f}{loaded}")
        lines.append(f"    {scale['largest']} vs FPKG: {scale['ratio_largest_to_fpkg_p50']}x (target <= 2x)")
    if "starts" in result:
        cold, restart = result["starts"]["cold"], result["starts"]["restart"]
        lines.append(f"  cold start {cold['ready_s']} s to ready, {cold['first_answer_s']} s to the first answer "
                     f"({cold['process_s']} s with imports); restart from snapshot {restart['ready_s']} s / "
                     f"{restart['first_answer_s']} s")
        for name, start in (("cold start", cold), ("restart", restart)):
            slowest = sorted(start.get("stages_s", []), key=lambda stage: -stage[1])[:STAGES_SHOWN]
            lines += [f"    {name}: {seconds:>6.2f} s  {message[:90]}" for message, seconds in slowest]
    memory = result["memory"]
    cold = f"; cold-start process {result['starts']['cold']['peak_rss_mb']} MB" if "starts" in result else ""
    scaled = f"; scaling process {scale['peak_rss_mb']} MB" if scale and "peak_rss_mb" in scale else ""
    scaled += f"; GLEE process {glee['peak_rss_mb']} MB" if glee and "peak_rss_mb" in glee else ""
    lines.append(f"  peak memory: this process (one pipeline) {memory['bench_peak_rss_mb']} MB (target <= "
                 f"{BENCH_PEAK_TARGET_MB} MB), FalkorDB server {memory['falkordb_server_rss_mb']} MB{cold}{scaled}")
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("perf", parents=[common], help="latency per stage, starts, memory, scaling",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--limit", type=int, help="only the first N questions of each Publication file")
    parser.add_argument("--vector-limit", type=int, default=30, help="questions timed in vector mode")
    parser.add_argument("--refit-questions", type=int, default=1, help="GLEE refits (each takes tens of seconds)")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold start and restart subprocesses")
    parser.add_argument("--no-scaling", action="store_true", help="skip the scaling graphs")
    parser.add_argument("--scale-factors", type=lambda s: tuple(int(x) for x in s.split(",") if x.strip()),
                        default=(5, 10))
    parser.add_argument("--scale-limit", type=int, default=30, help="questions per file timed on each graph")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    result = run(context.pipeline, limit=args.limit, vector_limit=args.vector_limit,
                 refit_questions=args.refit_questions, cold=not args.no_cold, do_scaling=not args.no_scaling,
                 scaling_factors=args.scale_factors, scale_limit=args.scale_limit)
    variant = variant_name("perf", args.limit and f"limit{args.limit}")
    return variant, result, summary(result)
