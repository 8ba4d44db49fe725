"""Scaling: the same queries on FPKG alone, FPKG + HPO, and synthetic graphs 5× and 10× that size.

A synthetic graph is the FPKG + HPO portable graph copied k times: copy 0 as it is, copy c
with node and relationship ids offset by c × 10^7, names and identifiers suffixed " ~c"
and numeric identifiers (pmid, did, geneId, ...) offset, so no copy shares a name, an id
or a paper with another. Every graph, FPKG and FPKG + HPO included, is loaded in turn into
a private embedded FalkorDB (its own server in a temporary folder, all graphs side by side)
and the queries are timed on every graph in turn, case by case.

The queries are the diagnosis ranker's (linking, the evidence queries, ranking) on cases
parsed from the Publication set, and the Cypher templates behind the domain questions,
all with the app's linker and ontology (built from FPKG + HPO), so every graph answers
exactly the same parameterised queries. The copies are disjoint: a query's neighbourhood
is as large as in copy 0, and what grows is every label's node count, index and store.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench.runtime import percentiles, progress, server_memory_mb
from diagnosis.profiles import DiseaseProfiles
from diagnosis.ranker import DiagnosisCase, DiagnosisRanker
from graphstore.embedded_falkordb import EmbeddedFalkorDB
from graphstore.falkordb_store import FalkorDBStore
from graphstore.graph import Graph, Node, Relationship
from kg_dump.build import LOOKUP_INDEXES, assemble_graph
from retrieval.cypher.mode import CypherRetriever

ID_STRIDE = 10_000_000
OFFSET_INTS = ("pmid", "did", "geneId", "gid", "gdid")  # identifiers that must not repeat across copies
KEPT_STRINGS = ("source",)  # provenance stays as it is
WARMUP = 2


def replicate(graph: Graph, factor: int) -> Graph:
    """`factor` disjoint copies of `graph` (copy 0 unchanged)."""
    if factor < 1:
        raise ValueError("factor must be >= 1")
    top = max([n.id for n in graph.nodes] + [r.id for r in graph.relationships] + [0])
    if top >= ID_STRIDE:
        raise ValueError(f"ids reach {top}; copies offset by {ID_STRIDE} would collide")
    out = Graph(list(graph.nodes), list(graph.relationships))
    for copy in range(1, factor):
        offset = copy * ID_STRIDE
        out.nodes.extend(Node(n.id + offset, list(n.labels), _renamed(n.properties, copy)) for n in graph.nodes)
        out.relationships.extend(Relationship(r.id + offset, r.type, r.start + offset, r.end + offset,
                                              _renamed(r.properties, copy)) for r in graph.relationships)
    return out


def _renamed(properties: dict[str, Any], copy: int) -> dict[str, Any]:
    renamed = {}
    for key, value in properties.items():
        if isinstance(value, str) and value and key not in KEPT_STRINGS:
            value = f"{value} ~{copy}"
        elif key in OFFSET_INTS and isinstance(value, int) and not isinstance(value, bool):
            value = value + copy * ID_STRIDE
        renamed[key] = value
    return renamed


def time_queries(stores: list[tuple[str, Any]], pipeline, cases: list[DiagnosisCase],
                 asks: list[str]) -> dict[str, dict[str, Any]]:
    """p50/p95 per graph of the ranker's work per case and of the template retrieval per question.

    Interleaved: each case runs on every graph before the next case, so the load that other
    work puts on a shared machine falls on all graphs alike instead of on whichever came last."""
    rankers, profiles_s = {}, {}
    for label, store in stores:  # each graph's own disease profiles, read once as at the app's start
        started = time.perf_counter()
        rankers[label] = DiagnosisRanker(store, pipeline.linker, pipeline.ontology,
                                         DiseaseProfiles.from_store(store), pipeline.findings)
        profiles_s[label] = round(time.perf_counter() - started, 2)
    retrievers = {label: CypherRetriever(store, pipeline.linker) for label, store in stores}
    for case in cases[:WARMUP]:
        for ranker in rankers.values():
            ranker.rank(case)
    totals: dict[str, list[float]] = {label: [] for label in rankers}
    queries: dict[str, list[float]] = {label: [] for label in rankers}
    asked: dict[str, list[float]] = {label: [] for label in rankers}
    for case in progress(cases, "scaling: diagnose on every graph"):
        for label, ranker in rankers.items():
            started = time.perf_counter()
            diagnosis = ranker.rank(case)
            totals[label].append((time.perf_counter() - started) * 1000)
            queries[label].append(diagnosis.timings_ms["queries"])
    for question in asks:
        for label, retriever in retrievers.items():
            asked[label].append(retriever.retrieve(question).timings_ms["cypher_retrieval"])
    return {label: {"diagnose_ms": percentiles(totals[label]), "queries_ms": percentiles(queries[label]),
                    "ask_ms": percentiles(asked[label]), "profiles_load_s": profiles_s[label]} for label in rankers}


def measure(pipeline, cases: list[DiagnosisCase], asks: list[str], *, factors: tuple[int, ...] = (5, 10),
            graphs: list[tuple[str, Graph]] | None = None) -> dict[str, Any]:
    """Load every graph into a private embedded FalkorDB, time the same queries on each, interleaved.

    A private server (in a temporary folder) keeps the app's server out of it: its memory, its
    snapshots, and other processes that share its folder and may stop it during a long load.
    `graphs` replaces the default FPKG / FPKG+HPO / copies (tests)."""
    rows, stores = [], []
    with tempfile.TemporaryDirectory(prefix="fpkg-scaling-") as folder, EmbeddedFalkorDB(Path(folder)) as server:
        try:
            for label, graph in graphs if graphs is not None else default_graphs(pipeline.settings, factors):
                store = FalkorDBStore(_graph_name(label), server=server)
                stores.append((label, store))
                started = time.perf_counter()
                store.load(graph, indexes=LOOKUP_INDEXES)
                before = rows[-1]["server_rss_mb_total"] if rows else 0.0
                total = server_memory_mb(server)
                rows.append({"graph": label, "nodes": len(graph.nodes), "relationships": len(graph.relationships),
                             "load_s": round(time.perf_counter() - started, 2), "server_rss_mb_total": total,
                             "server_rss_mb": round(total - before, 1)})  # what this graph added
                del graph  # the Python copy: the next (larger) one needs the memory
            timed = time_queries(stores, pipeline, cases, asks)
        finally:
            for _, store in stores:
                store.close()
    for row in rows:
        row.update(timed[row["graph"]])
    fpkg, top = rows[0], rows[-1]
    return {"rows": rows, "copies_are_disjoint": True, "interleaved": True, "largest": top["graph"],
            "ratio_largest_to_fpkg_p50": _ratio(top, fpkg),
            "ratio_largest_to_fpkg_hpo_p50": _ratio(top, rows[1]) if len(rows) > 1 else None,
            "target": "diagnose p50 at 10x within 2x of FPKG's"}


def default_graphs(settings, factors: tuple[int, ...]) -> Iterator[tuple[str, Graph]]:
    """FPKG alone, FPKG + HPO, then its copies, built one at a time (a 10x graph takes ~GBs)."""
    yield "FPKG", assemble_graph(settings, with_hpo=False)[0]
    full, _ = assemble_graph(settings, with_hpo=True)
    yield "FPKG+HPO", full
    for factor in factors:
        yield f"{factor}x FPKG+HPO", replicate(full, factor)


def _graph_name(label: str) -> str:
    return "scale_" + "".join(c if c.isalnum() else "_" for c in label.lower())


def _ratio(row: dict[str, Any], base: dict[str, Any]) -> float | None:
    a, b = row["diagnose_ms"].get("p50"), base["diagnose_ms"].get("p50")
    return round(a / b, 3) if a and b else None
