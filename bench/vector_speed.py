"""python -m bench vector-speed: vector-mode retrieval against the upstream per-question GLEE refit.

    python -m bench vector-speed [--questions 50] [--refit-questions 5] [--refit-dim N] [--no-hpo]
                                 [--threads 1|2|none] [--embed-rerank-questions N] [--json]

Builds the graph (FPKG + HPO unless --no-hpo) into the configured store if it is not
there, loads or builds the cached vector index (its build time is reported), links the
phenotype, gene and disease names that occur verbatim in each Publication-set question
(the same links for both methods), then times `VectorRetriever.for_diagnosis` (as the app
retrieves for a patient's case: its options list is not embedded) on every question and the
refit (`glee_refit_per_question`) on the first --refit-questions ones, interleaved (each refit
takes seconds). Prints p50/p95 of both and their ratio, vector mode also without the case's
embedding (a ~76-token case costs MiniLM ~17-22 ms on one core in bfloat16) and on the first
--questions short domain questions of datasets/domain_qa.xlsx. Both question files come from the
data folder (fetched when missing); a measurement that cannot run says why under "skipped" and in
the summary.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import time
from typing import TYPE_CHECKING, Any

from bench.diagnosis import read_questions
from bench.domain import read_domain
from bench.results import variant_name
from bench.runtime import percentiles
from fpkg.config import Settings
from fpkg.errors import BenchError, DataFileError
from fpkg.names import fold_name
from kg_dump.data_files import DOMAIN_QA, PUBLICATION_SET, data_file

if TYPE_CHECKING:  # vector mode loads torch and FAISS: imported where it runs
    from graphstore.store import GraphStore
    from retrieval.result import Link
    from retrieval.vector.index import VectorIndex

LINKED_LABELS = {"FacePhenotype": "FACIAL_PHENOTYPE", "Genotype": "GENE", "Disease": "DISEASE"}
MAX_NGRAM = 8
WARMUP = 3


class NameLinks:
    """Links for the benchmark: names of phenotypes, genes and diseases that occur verbatim
    (case-folded, as whole words) in the question. Entity linking proper lives in
    `retrieval.linking`; this only gives both methods the same realistic seeds."""

    def __init__(self, index: VectorIndex) -> None:
        self.by_name: dict[str, tuple[int, str, str]] = {}
        for nid, label, name in zip(index.ids.tolist(), index.labels, index.names, strict=True):
            if label in LINKED_LABELS and name:
                self.by_name.setdefault(fold_name(name), (nid, label, name))

    def __call__(self, question: str) -> list[Link]:
        from retrieval.result import Link

        words = fold_name(question).split()
        links: dict[int, Link] = {}
        for size in range(MAX_NGRAM, 0, -1):
            for i in range(len(words) - size + 1):
                found = self.by_name.get(" ".join(words[i:i + size]))
                if found and found[0] not in links:
                    nid, label, name = found
                    links[nid] = Link(name, LINKED_LABELS[label], nid, label, name, 1.0, "exact")
        return list(links.values())


def measure(store: GraphStore, index: VectorIndex, questions: list[str], *, answers: list[str] | None = None,
            refit_questions: int = 5, embed_rerank_questions: int = 0, threads: int | None = 1,
            top_k: int = 5, top_n: int = 20, threshold: float = 0.3, refit_dim: int | None = None,
            cases: bool = True) -> dict:
    """Times vector mode on every question (`cases`: as patients' cases, else as free questions)
    and the per-question refit on the first `refit_questions`, interleaved, with the same links;
    returns the figures as a dict. With `answers`,
    also the share of questions whose kept triples name the answer. `refit_dim`: the refit's GLEE
    dimension (default upstream's, `retrieval.vector.glee.UPSTREAM_DIM`)."""
    from retrieval.vector.glee import UPSTREAM_DIM, glee_refit_per_question
    from retrieval.vector.index import fetch_graph
    from retrieval.vector.mode import VectorRetriever

    if not questions:
        raise BenchError("vector-speed needs at least one question to time")
    linker = NameLinks(index)
    links = [linker(q) for q in questions]
    retriever = VectorRetriever(store, index, threads=threads)
    options = {"top_k": top_k, "top_n": top_n, "threshold": threshold}

    def retrieve(q: str, qlinks: list[Link]):
        """As the app retrieves for a patient's case (the Publication questions), or for a question."""
        return retriever.for_diagnosis(q, qlinks, **options) if cases else retriever.retrieve(q, qlinks, **options)

    for q, qlinks in list(zip(questions, links, strict=True))[:WARMUP]:  # model and caches warm
        retrieve(q, qlinks)
    stages: dict[str, list[float]] = {}
    sizes, hits = [], 0
    for i, (q, qlinks) in enumerate(zip(questions, links, strict=True)):
        cpu = time.process_time()
        result = retrieve(q, qlinks)
        # this process's CPU time: close to the wall time on an idle machine (the store's
        # server time is not in it), whatever the load when the benchmark runs
        stages.setdefault("cpu", []).append((time.process_time() - cpu) * 1000)
        for stage, ms in result.timings_ms.items():
            stages.setdefault(stage, []).append(ms)
        stages.setdefault("total_without_embed", []).append(result.timings_ms["total"] - result.timings_ms["embed"])
        sizes.append(len(result.triples))
        if answers:
            hits += fold_name(answers[i]) in {fold_name(n) for t in result.triples for n in (t.head, t.tail)}
    out: dict[str, Any] = {
        "questions": len(questions), "threads": threads,
        "links_per_question": statistics.fmean(len(x) for x in links),
        "triples_per_question": statistics.fmean(sizes),
        "vector_ms": percentiles(stages.get("total", [])),
        "vector_without_embed_ms": percentiles(stages.get("total_without_embed", [])),
        "vector_cpu_ms": percentiles(stages.get("cpu", [])),
        "vector_stage_p50_ms": {k: percentiles(v)["p50"] for k, v in stages.items()}}
    if answers:
        out["answer_named_in_triples"] = hits / len(questions)
    if embed_rerank_questions:
        out["embed_rerank"] = _compare_embed_rerank(store, index, questions[:embed_rerank_questions],
                                                    links, top_k=top_k, top_n=top_n)
    if refit_questions:
        refit_dim = refit_dim or UPSTREAM_DIM
        data = fetch_graph(store)  # once, as upstream loads its JSON export once
        node_ids = data.ids.tolist()
        edges = [(node_ids[a], node_ids[b]) for a, b in data.relationships.pairs().tolist()]
        # interleaved: each refit right after our retrieval of the same question, so both meet the
        # same machine load; the ratio is taken per question, then summarised
        refit_ms, paired_ms = [], []
        for q, qlinks in list(zip(questions, links, strict=True))[:refit_questions]:
            started = time.perf_counter()
            retrieve(q, qlinks)
            paired_ms.append((time.perf_counter() - started) * 1000)
            refit_ms.append(glee_refit_per_question(node_ids, edges, [x.node_id for x in qlinks], top_k=20,
                                                    dim=refit_dim).seconds * 1000)
        out["refit_dim"] = refit_dim
        out["refit_ms"] = percentiles(refit_ms)
        out["ratio_p50"] = out["refit_ms"]["p50"] / out["vector_ms"]["p50"]
        ratios = [r / v for r, v in zip(refit_ms, paired_ms, strict=True)]
        out["ratio_interleaved"] = {**percentiles(ratios), "min": round(min(ratios), 3)}
    return out


def _compare_embed_rerank(store: GraphStore, index: VectorIndex, questions: list[str],
                          links: list[list[Link]], *, top_k: int, top_n: int) -> dict:
    """Seed 001's re-ranking (MiniLM over each triple's text) against the composed vectors:
    its time, and how many of its top-n triples the composed ranking also keeps."""
    from retrieval.vector.mode import VectorRetriever

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


def short_questions(settings: Settings, limit: int) -> tuple[list[str], str | None]:
    """The first `limit` short questions ("What facial phenotypes ... X?") of the data folder's domain
    workbook (fetched when missing), or none and the reason they cannot be had."""
    try:
        questions = [q.question for q in read_domain(data_file(settings.data_dir, DOMAIN_QA))][:limit]
    except (DataFileError, BenchError, OSError) as e:  # the patient questions are timed without them
        return [], f"the domain questions cannot be read: {e}"
    return questions, None if questions else f"{DOMAIN_QA} holds no questions"


def run(settings: Settings, *, with_hpo: bool = True, questions: int = 50, refit_questions: int = 5,
        embed_rerank_questions: int = 0, threads: int | None = 1, refit_dim: int | None = None) -> dict:
    from graphstore.store import open_store
    from kg_dump.build import ensure_built
    from retrieval.vector.index import VectorIndex

    if questions < 1:
        raise BenchError("--questions must be at least 1")
    publication = read_questions(data_file(settings.data_dir, PUBLICATION_SET), limit=questions)
    short, short_skipped = short_questions(settings, questions)
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
        out: dict[str, Any] = {
            "graph": "FPKG+HPO" if with_hpo else "FPKG", "nodes": len(index), "edges": index.stats.get("edges"),
            "graph_ready_s": round(graph_s, 2), "graph_built_now": not build.skipped,
            "index_ready_s": round(index_s, 2), "index": index.stats}
        out.update(measure(store, index, [q.text for q in publication], answers=[q.true_answer for q in publication],
                           refit_questions=refit_questions, embed_rerank_questions=embed_rerank_questions,
                           threads=threads, refit_dim=refit_dim))
        skipped = {"refit": "--refit-questions 0"} if not refit_questions else {}
        if short_skipped:
            skipped["short_questions"] = short_skipped
        else:
            out["short_questions"] = measure(store, index, short, refit_questions=0, threads=threads, cases=False)
        if skipped:
            out["skipped"] = skipped
        out["load_average"] = os.getloadavg()
        out["cpus"] = os.cpu_count()
        return out
    finally:
        store.close()


def summary(out: dict) -> str:
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
        lines.append(f"per-question GLEE refit (dim {out['refit_dim']}) over {r['n']} questions: "
                     f"p50 {r['p50'] / 1000:.2f} s, p95 {r['p95'] / 1000:.2f} s; ratio of p50s {out['ratio_p50']:.0f}x")
        i = out["ratio_interleaved"]
        lines.append(f"  interleaved, per question (refit / our retrieval just before it): p50 {i['p50']:.0f}x, "
                     f"min {i['min']:.0f}x, max {i['max']:.0f}x")
    if "embed_rerank" in out:
        e = out["embed_rerank"]
        lines.append(f"re-ranking by embedding triple texts: p50 {e['total_ms']['p50']:.0f} ms; "
                     f"top-n overlap with composed {e['top_n_overlap']}")
    for part, reason in out.get("skipped", {}).items():
        lines.append(f"skipped {part}: {reason}")
    lines.append(f"load average {', '.join(f'{x:.1f}' for x in out['load_average'])} on {out['cpus']} CPUs")
    return "\n".join(lines)


def _threads(value: str) -> int | None:
    if value == "none":
        return None
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--threads takes a number or 'none', not {value!r}") from None


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("vector-speed", parents=[common],
                                   help="vector-mode retrieval against the per-question GLEE refit",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=50, help="Publication-set (and domain) questions timed")
    parser.add_argument("--refit-questions", type=int, default=5, help="GLEE refits (each takes seconds to minutes)")
    parser.add_argument("--refit-dim", type=int,
                        help="the refit's GLEE dimension (default: upstream's, retrieval.vector.glee.UPSTREAM_DIM)")
    parser.add_argument("--embed-rerank-questions", type=int, default=0)
    parser.add_argument("--no-hpo", action="store_true", help="FPKG only (the graph of the paper)")
    parser.add_argument("--threads", type=_threads, default=1, help="torch/BLAS threads during retrieval, or 'none'")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict, str]:
    out = run(context.settings, with_hpo=not args.no_hpo, questions=args.questions,
              refit_questions=args.refit_questions, embed_rerank_questions=args.embed_rerank_questions,
              threads=args.threads, refit_dim=args.refit_dim)
    variant = variant_name("fpkg" if args.no_hpo else "fpkg_hpo", f"q{args.questions}",
                           args.refit_questions and f"refit{args.refit_questions}",
                           args.refit_dim and f"dim{args.refit_dim}")
    return variant, out, summary(out)
