"""Scaling: the same queries on FPKG alone, FPKG + HPO, and synthetic graphs 5× and 10× that size.

A synthetic graph is the FPKG + HPO portable graph copied k times: copy 0 as it is, copy c
with node and relationship ids offset by c × 10^7, names and identifiers suffixed " ~c"
and numeric identifiers (pmid, did, geneId, ...) offset, so no copy shares a name, an id
or a paper with another. Every graph, FPKG and FPKG + HPO included, is loaded in turn into
a private embedded FalkorDB (its own server in a temporary folder), timed, and dropped.

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
from kg_dump.build import LOOKUP_INDEXES, assemble_graph
from kg_dump.graph import Graph, Node, Relationship
from retrieval.cypher_mode import CypherRetriever
from retrieval.diagnose import DiagnosisCase, DiagnosisRanker
from retrieval.embedded_falkordb import EmbeddedFalkorDB
from retrieval.falkordb_store import FalkorDBStore

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
            graphs: list[tuple[str, Graph]] | None = None) -> dict[str, Any]:
    """Load each graph in turn into a private embedded FalkorDB, time the queries, drop it.

    A private server (in a temporary folder) keeps the app's server out of it: its memory, its
    snapshots, and other processes that share its folder and may stop it during a long load.
    `graphs` replaces the default FPKG / FPKG+HPO / copies (tests)."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="fpkg-scaling-") as folder, EmbeddedFalkorDB(Path(folder)) as server:
        for label, graph in graphs if graphs is not None else default_graphs(pipeline.settings, factors):
            store = FalkorDBStore(_graph_name(label), server=server)
            try:
                started = time.perf_counter()
                store.load(graph, indexes=LOOKUP_INDEXES)
                row = {"graph": label, "nodes": len(graph.nodes), "relationships": len(graph.relationships),
                       "load_s": round(time.perf_counter() - started, 2), "server_rss_mb": server_memory_mb(server)}
                del graph  # the next (larger) copy needs the memory
                row.update(time_queries(store, pipeline, cases, asks, label))
                store.load(Graph())  # drop it: the next graph runs alone on the server
            finally:
                store.close()
            rows.append(row)
    fpkg, top = rows[0], rows[-1]
    return {"rows": rows, "copies_are_disjoint": True, "largest": top["graph"],
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
