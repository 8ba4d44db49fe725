"""Vector-mode retrieval speed against the upstream per-question GLEE refit, in one run.

    python -m bench.vector_speed [--questions 50] [--refit-questions 5] [--no-hpo]
                                 [--threads 1|2|none] [--embed-rerank-questions N] [--json]

Builds the graph (FPKG + HPO unless --no-hpo) into the configured store if it is not
there, loads or builds the cached vector index (its build time is reported), links the
phenotype, gene and disease names that occur verbatim in each Publication-set question
(the same links for both methods), then times `VectorRetriever.retrieve` on every
question and the refit (`glee_refit_per_question`) on the first --refit-questions ones
(each refit takes seconds to minutes). Prints p50/p95 of both and their ratio, vector
mode also without the question's embedding (a ~120-token patient question costs MiniLM
tens of ms on 2 cores) and on the short domain-QA questions; --json prints one object.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a script: make the repository root importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from fpkg.config import Settings  # noqa: E402
from graphstore.store import GraphStore  # noqa: E402
from retrieval.glee import UPSTREAM_DIM, glee_refit_per_question  # noqa: E402
from retrieval.result import Link  # noqa: E402
from retrieval.vector_index import VectorIndex, fetch_graph  # noqa: E402
from retrieval.vector_mode import VectorRetriever  # noqa: E402

QUESTIONS_FILE = Path("datasets") / "Publication_patient_question.csv"
SHORT_QUESTIONS_FILE = Path("datasets") / "domain_qa.csv"  # "What facial phenotypes ... X?"
LINKED_LABELS = {"FacePhenotype": "FACIAL_PHENOTYPE", "Genotype": "GENE", "Disease": "DISEASE"}
MAX_NGRAM = 8
WARMUP = 3


def load_questions(data_dir: Path, limit: int, name: Path = QUESTIONS_FILE,
                   column: str = "Patient_question", answer_column: str | None = "True_answer",
                   ) -> tuple[list[str], list[str] | None]:
    with open(data_dir / name, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))[:limit]
    answers = [row[answer_column] for row in rows] if answer_column else None
    return [row[column] for row in rows], answers


class NameLinks:
    """Links for the benchmark: names of phenotypes, genes and diseases that occur verbatim
    (case-folded, as whole words) in the question. Entity linking proper lives in
    `retrieval.linking`; this only gives both methods the same realistic seeds."""

    def __init__(self, index: VectorIndex) -> None:
        self.by_name: dict[str, tuple[int, str, str]] = {}
        for nid, label, name in zip(index.ids.tolist(), index.labels, index.names, strict=True):
            if label in LINKED_LABELS and name:
                self.by_name.setdefault(_fold(name), (nid, label, name))

    def __call__(self, question: str) -> list[Link]:
        words = _fold(question).split()
        links: dict[int, Link] = {}
        for size in range(MAX_NGRAM, 0, -1):
            for i in range(len(words) - size + 1):
                found = self.by_name.get(" ".join(words[i:i + size]))
                if found and found[0] not in links:
                    nid, label, name = found
                    links[nid] = Link(name, LINKED_LABELS[label], nid, label, name, 1.0, "exact")
        return list(links.values())


def _fold(text: str) -> str:
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text.lower()).split())


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "p50": float(np.percentile(values, 50)), "p95": float(np.percentile(values, 95)),
            "mean": statistics.fmean(values), "min": min(values), "max": max(values)}


def measure(store: GraphStore, index: VectorIndex, questions: list[str], *, answers: list[str] | None = None,
            refit_questions: int = 5, embed_rerank_questions: int = 0, threads: int | None = 1,
            top_k: int = 5, top_n: int = 20, threshold: float = 0.3, refit_dim: int = UPSTREAM_DIM) -> dict:
    """Times vector mode on every question and the per-question refit on the first
    `refit_questions`, with the same links; returns the figures as a dict. With `answers`,
    also the share of questions whose kept triples name the answer."""
    linker = NameLinks(index)
    links = [linker(q) for q in questions]
    retriever = VectorRetriever(store, index, threads=threads)
    for q, qlinks in list(zip(questions, links, strict=True))[:WARMUP]:  # model and caches warm
        retriever.retrieve(q, qlinks, top_k=top_k, top_n=top_n, threshold=threshold)
    stages: dict[str, list[float]] = {}
    sizes, hits = [], 0
    for i, (q, qlinks) in enumerate(zip(questions, links, strict=True)):
        cpu = time.process_time()
        result = retriever.retrieve(q, qlinks, top_k=top_k, top_n=top_n, threshold=threshold)
        # this process's CPU time: close to the wall time on an idle machine (the store's
        # server time is not in it), whatever the load when the benchmark runs
        stages.setdefault("cpu", []).append((time.process_time() - cpu) * 1000)
        for stage, ms in result.timings_ms.items():
            stages.setdefault(stage, []).append(ms)
        stages.setdefault("total_without_embed", []).append(result.timings_ms["total"] - result.timings_ms["embed"])
        sizes.append(len(result.triples))
        if answers:
            hits += _fold(answers[i]) in {_fold(n) for t in result.triples for n in (t.head, t.tail)}
    out = {"questions": len(questions), "threads": threads,
           "links_per_question": statistics.fmean(len(x) for x in links),
           "triples_per_question": statistics.fmean(sizes) if sizes else 0.0,
           "vector_ms": percentiles(stages.get("total", [])),
           "vector_without_embed_ms": percentiles(stages.get("total_without_embed", [])),
           "vector_cpu_ms": percentiles(stages.get("cpu", [])),
           "vector_stage_p50_ms": {k: float(np.median(v)) for k, v in stages.items()}}
    if answers:
        out["answer_named_in_triples"] = hits / len(questions)
    if embed_rerank_questions:
        out["embed_rerank"] = _compare_embed_rerank(store, index, questions[:embed_rerank_questions],
                                                    links, top_k=top_k, top_n=top_n)
    if refit_questions:
        data = fetch_graph(store)  # once, as upstream loads its JSON export once
        node_ids = data.ids.tolist()
        edges = [(node_ids[a], node_ids[b]) for a, b in data.edges.tolist()]
        seconds = [glee_refit_per_question(node_ids, edges, [x.node_id for x in qlinks], top_k=20,
                                           dim=refit_dim).seconds
                   for qlinks in links[:refit_questions]]
        out["refit_ms"] = percentiles([s * 1000 for s in seconds])
        out["ratio_p50"] = out["refit_ms"]["p50"] / out["vector_ms"]["p50"]
    return out


def _compare_embed_rerank(store: GraphStore, index: VectorIndex, questions: list[str],
                          links: list[list[Link]], *, top_k: int, top_n: int) -> dict:
    """Seed 001's re-ranking (MiniLM over each triple's text) against the composed vectors:
    its time, and how many of its top-n triples the composed ranking also keeps."""
    composed = VectorRetriever(store, index)
    embedded = VectorRetriever(store, index, rerank="embed")
    overlaps, times = [], []
    for q, qlinks in zip(questions, links, strict=True):
        a = composed.retrieve(q, qlinks, top_k=top_k, top_n=top_n, threshold=-1.0)
        b = embedded.retrieve(q, qlinks, top_k=top_k, top_n=top_n, threshold=-1.0)
        keys = {(t.head_id, t.relation, t.tail_id) for t in a.triples}
        if b.triples:
            overlaps.append(sum((t.head_id, t.relation, t.tail_id) in keys for t in b.triples) / len(b.triples))
        times.append(b.timings_ms["total"])
    return {"questions": len(questions), "total_ms": percentiles(times),
            "top_n_overlap": statistics.fmean(overlaps) if overlaps else None}


def run(settings: Settings, *, with_hpo: bool = True, questions: int = 50, refit_questions: int = 5,
        embed_rerank_questions: int = 0, threads: int | None = 1) -> dict:
    from graphstore.store import open_store
    from kg_dump.build import ensure_built

    if not with_hpo:  # its own graph name, so the full graph stays as it is
        settings = dataclasses.replace(settings, graph_name=f"{settings.graph_name}_fpkg_only")
    store = open_store(settings)
    try:
        started = time.perf_counter()
        build = ensure_built(store, settings, with_hpo=with_hpo)
        graph_s = time.perf_counter() - started
        started = time.perf_counter()
        index = VectorIndex.load_or_build(store, settings.cache_dir)
        index_s = time.perf_counter() - started
        out = {"graph": "FPKG+HPO" if with_hpo else "FPKG", "nodes": len(index), "edges": index.stats.get("edges"),
               "graph_ready_s": round(graph_s, 2), "graph_built_now": not build.skipped,
               "index_ready_s": round(index_s, 2), "index": index.stats}
        texts, answers = load_questions(settings.data_dir, questions)
        out.update(measure(store, index, texts, answers=answers, refit_questions=refit_questions,
                           embed_rerank_questions=embed_rerank_questions, threads=threads))
        if (settings.data_dir / SHORT_QUESTIONS_FILE).is_file():
            texts, _ = load_questions(settings.data_dir, questions, SHORT_QUESTIONS_FILE, "question", None)
            out["short_questions"] = measure(store, index, texts, refit_questions=0, threads=threads)
        out["load_average"] = os.getloadavg()
        out["cpus"] = os.cpu_count()
        return out
    finally:
        store.close()


def report(out: dict) -> str:
    lines = [f"graph {out['graph']}: {out['nodes']} nodes, {out['edges']} edges; index "
             f"{'loaded from cache' if out['index'].get('loaded_from_cache') else 'built'} "
             f"in {out['index_ready_s']} s (build: {out['index'].get('build_s')})"]
    for name, part in (("patient questions", out), ("short questions", out.get("short_questions"))):
        if not part:
            continue
        v, w = part["vector_ms"], part["vector_without_embed_ms"]
        lines.append(f"vector mode, {v['n']} {name} (threads={part['threads']}): p50 {v['p50']:.1f} ms, "
                     f"p95 {v['p95']:.1f} ms; without the question embedding p50 {w['p50']:.1f} ms, "
                     f"p95 {w['p95']:.1f} ms")
        c = part["vector_cpu_ms"]
        lines.append(f"  client CPU time per retrieval: p50 {c['p50']:.1f} ms, p95 {c['p95']:.1f} ms")
        lines.append("  stage p50s (ms): " + ", ".join(f"{k} {x:.1f}" for k, x in part["vector_stage_p50_ms"].items()))
        if "answer_named_in_triples" in part:
            lines.append(f"  kept triples name the true answer in {part['answer_named_in_triples']:.0%} of questions")
    if "refit_ms" in out:
        r = out["refit_ms"]
        lines.append(f"per-question GLEE refit over {r['n']} questions: p50 {r['p50'] / 1000:.2f} s, "
                     f"p95 {r['p95'] / 1000:.2f} s; ratio of p50s {out['ratio_p50']:.0f}x")
    if "embed_rerank" in out:
        e = out["embed_rerank"]
        lines.append(f"re-ranking by embedding triple texts: p50 {e['total_ms']['p50']:.0f} ms; "
                     f"top-n overlap with composed {e['top_n_overlap']}")
    lines.append(f"load average {', '.join(f'{x:.1f}' for x in out['load_average'])} on {out['cpus']} CPUs")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=50)
    parser.add_argument("--refit-questions", type=int, default=5)
    parser.add_argument("--embed-rerank-questions", type=int, default=0)
    parser.add_argument("--no-hpo", action="store_true", help="FPKG only (the graph of the paper)")
    parser.add_argument("--threads", default="1", help="torch/BLAS threads during retrieval, or 'none'")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    out = run(Settings.from_env(), with_hpo=not args.no_hpo, questions=args.questions,
              refit_questions=args.refit_questions, embed_rerank_questions=args.embed_rerank_questions,
              threads=None if args.threads == "none" else int(args.threads))
    print(json.dumps(out, indent=1, default=str) if args.json else report(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
