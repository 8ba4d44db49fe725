"""Scaling: the same queries on FPKG alone, FPKG + HPO, and synthetic graphs 5× and 10× that size.

A synthetic graph is the FPKG + HPO portable graph copied k times: copy 0 as it is, copy c
with node and relationship ids offset by c × 10^7, names and identifiers suffixed " ~c"
and numeric identifiers (pmid, did, geneId, ...) offset, so no copy shares a name, an id
or a paper with another. It loads under its own graph name in the configured FalkorDB
(never over the app's graph) and is dropped afterwards unless `keep`.

The queries are the diagnosis ranker's (linking, the evidence queries, ranking) on cases
parsed from the Publication set, and the Cypher templates behind the domain questions,
all with the app's linker and ontology (built from FPKG + HPO), so every graph answers
exactly the same parameterised queries. The copies are disjoint: a query's neighbourhood
is as large as in copy 0, and what grows is every label's node count, index and store.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from bench.runtime import BenchError, percentiles, progress
from kg_dump.build import LOOKUP_INDEXES, assemble_graph, ensure_built
from kg_dump.graph import Graph, Node, Relationship
from retrieval.cypher_mode import CypherRetriever
from retrieval.diagnose import DiagnosisCase, DiagnosisRanker
from retrieval.store import open_store

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


def time_queries(store, pipeline, cases: list[DiagnosisCase], asks: list[str], label: str) -> dict[str, Any]:
    """p50/p95 of the ranker's work per case and of the template retrieval per question on `store`."""
    ranker = DiagnosisRanker(store, pipeline.linker, pipeline.ranker.ontology)
    retriever = CypherRetriever(store, pipeline.linker)
    for case in cases[:WARMUP]:
        ranker.rank(case)
    totals, queries, ask_ms = [], [], []
    for case in progress(cases, f"scaling {label}: diagnose"):
        started = time.perf_counter()
        diagnosis = ranker.rank(case)
        totals.append((time.perf_counter() - started) * 1000)
        queries.append(diagnosis.timings_ms["queries"])
    for question in asks:
        ask_ms.append(retriever.retrieve(question).timings_ms["cypher_retrieval"])
    return {"diagnose_ms": percentiles(totals), "queries_ms": percentiles(queries), "ask_ms": percentiles(ask_ms)}


def measure(pipeline, cases: list[DiagnosisCase], asks: list[str], *, factors: tuple[int, ...] = (5, 10),
            keep: bool = False) -> dict[str, Any]:
    settings = pipeline.settings
    if settings.graph_backend != "falkordb":
        raise BenchError("scaling loads extra graphs by name, which only the FalkorDB store keeps apart "
                         "(a Neo4j store would replace its database); run it with GRAPH_BACKEND=falkordb")
    rows = []
    fpkg_settings = dataclasses.replace(settings, graph_name=f"{settings.graph_name}_fpkg_only", with_hpo=False)
    store = open_store(fpkg_settings)  # the same graph name bench/vector_speed.py uses, built once
    try:
        started = time.perf_counter()
        report = ensure_built(store, fpkg_settings, with_hpo=False)
        rows.append({"graph": "FPKG", "factor": None, "nodes": report.counts["nodes"],
                     "relationships": report.counts["relationships"],
                     "load_s": None if report.skipped else round(time.perf_counter() - started, 2),
                     **time_queries(store, pipeline, cases, asks, "FPKG")})
    finally:
        store.close()
    base = pipeline.build_report.counts if pipeline.build_report else {}
    rows.append({"graph": "FPKG+HPO", "factor": 1, "nodes": base.get("nodes"),
                 "relationships": base.get("relationships"), "load_s": None,
                 **time_queries(pipeline.store, pipeline, cases, asks, "FPKG+HPO")})
    if factors:
        graph, _ = assemble_graph(settings, with_hpo=True)
        for factor in factors:
            rows.append(_synthetic_row(pipeline, graph, factor, cases, asks, keep))
    fpkg, top = rows[0], rows[-1]
    return {"rows": rows, "copies_are_disjoint": True,
            "ratio_largest_to_fpkg_p50": _ratio(top, fpkg), "ratio_largest_to_fpkg_hpo_p50": _ratio(top, rows[1]),
            "largest": top["graph"], "target": "diagnose p50 at 10x within 2x of FPKG's"}


def _synthetic_row(pipeline, graph: Graph, factor: int, cases, asks, keep: bool) -> dict[str, Any]:
    name = f"{pipeline.settings.graph_name}_x{factor}"
    big = replicate(graph, factor)
    store = open_store(dataclasses.replace(pipeline.settings, graph_name=name))
    try:
        started = time.perf_counter()
        store.load(big, indexes=LOOKUP_INDEXES)
        load_s = round(time.perf_counter() - started, 2)
        row = {"graph": f"{factor}x FPKG+HPO", "factor": factor, "nodes": len(big.nodes),
               "relationships": len(big.relationships), "load_s": load_s,
               **time_queries(store, pipeline, cases, asks, f"{factor}x")}
        if not keep:
            store.load(Graph())  # loading the empty graph drops it: the server's memory back
        return row
    finally:
        store.close()


def _ratio(row: dict[str, Any], base: dict[str, Any]) -> float | None:
    a, b = row["diagnose_ms"].get("p50"), base["diagnose_ms"].get("p50")
    return round(a / b, 3) if a and b else None
