"""python -m bench glee-check: the paper's Table 7 check: can a random forest tell a node's type
from its GLEE vector?

    python -m bench glee-check [--no-hpo] [--dim N] [--upstream] [--json]

As the upstream Embedding_Compare.py: the undirected graph of the relationships (nodes
without one left out), each node labelled with its type, an 80/20 split
(random_state=42), RandomForestClassifier(n_estimators=100, random_state=42), F1 on the
test part. GLEE scored micro-F1 0.78 in the paper (FPKG). Scores our GLEE (the paper's
definition, as the vector index uses it: raw and row-normalised) and, with --upstream,
karateclub's variant that the upstream code ran (128+1 normalised-Laplacian
eigenvectors; tens of seconds).
"""

from __future__ import annotations

import argparse
import time
from typing import TYPE_CHECKING, Any

from bench.results import variant_name
from fpkg.errors import BenchError

if TYPE_CHECKING:
    import numpy as np

    from graphstore.graph import Graph

PAPER_GLEE_MICRO_F1 = 0.78


def node_type_f1(vectors: np.ndarray, labels: list[str], seed: int = 42) -> dict[str, float]:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.metrics import f1_score
    from sklearn.model_selection import train_test_split

    x_train, x_test, y_train, y_test = train_test_split(vectors, labels, test_size=0.2, random_state=seed)
    forest = RandomForestClassifier(n_estimators=100, random_state=seed, n_jobs=-1)
    predicted = forest.fit(x_train, y_train).predict(x_test)
    return {avg: round(float(f1_score(y_test, predicted, average=avg)), 4) for avg in ("micro", "macro", "weighted")}


def connected_part(graph: Graph) -> tuple[list[str], np.ndarray]:
    """Labels of the nodes that have a relationship, and the edges as row indices."""
    import numpy as np

    used = {n for r in graph.relationships for n in (r.start, r.end)}
    nodes = [n for n in graph.nodes if n.id in used]
    row = {n.id: i for i, n in enumerate(nodes)}
    edges = np.asarray([(row[r.start], row[r.end]) for r in graph.relationships], dtype=np.int64)
    return [n.labels[0] if n.labels else "" for n in nodes], edges


def check(graph: Graph, *, dim: int | None = None, upstream: bool = False) -> dict[str, Any]:
    """`dim`: our GLEE's dimension (default the vector index's, `retrieval.vector.glee.DEFAULT_DIM`)."""
    import numpy as np

    from retrieval.vector.glee import DEFAULT_DIM, UPSTREAM_DIM, adjacency, glee, normalized_laplacian, upstream_glee

    dim = dim or DEFAULT_DIM
    labels, edges = connected_part(graph)
    largest = max(dim, UPSTREAM_DIM + 1) if upstream else dim  # eigenvectors asked for
    if len(labels) <= largest:
        raise BenchError(f"the graph has {len(labels)} nodes with a relationship: too few for {largest} "
                         "GLEE dimensions")
    adj = adjacency(len(labels), edges)
    out: dict[str, Any] = {"dim": dim, "nodes": len(labels), "edges": int(adj.nnz // 2),
                           "paper_glee_micro_f1": PAPER_GLEE_MICRO_F1,
                           "label_counts": {lb: labels.count(lb) for lb in sorted(set(labels))}}
    started = time.perf_counter()
    vectors, _ = glee(adj, dim)
    out[f"glee_{dim}"] = {"seconds": round(time.perf_counter() - started, 2), **node_type_f1(vectors, labels)}
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    out[f"glee_{dim}_unit_rows"] = node_type_f1(vectors / np.where(norms == 0, 1, norms), labels)
    if upstream:
        started = time.perf_counter()
        vectors = upstream_glee(normalized_laplacian(adj), UPSTREAM_DIM)
        out[f"karateclub_glee_{UPSTREAM_DIM}"] = {"seconds": round(time.perf_counter() - started, 2),
                                                  **node_type_f1(vectors, labels)}
    return out


def summary(out: dict[str, Any]) -> str:
    lines = [f"{out['graph']}: {out['nodes']} nodes with a relationship, {out['edges']} undirected edges"]
    for key, value in out.items():
        if isinstance(value, dict) and "micro" in value:
            lines.append(f"  {key:<22} micro-F1 {value['micro']:.3f}  macro {value['macro']:.3f}  "
                         f"weighted {value['weighted']:.3f}")
    lines.append(f"  paper (GLEE, FPKG)     micro-F1 {PAPER_GLEE_MICRO_F1:.2f}")
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("glee-check", parents=[common], help="node-type F1 of GLEE vectors (Table 7)",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--no-hpo", action="store_true", help="FPKG only (the paper's graph)")
    parser.add_argument("--dim", type=int,
                        help="our GLEE's dimension (default: the vector index's, retrieval.vector.glee.DEFAULT_DIM)")
    parser.add_argument("--upstream", action="store_true", help="also karateclub's variant (slow)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    from kg_dump.build import assemble_graph

    if args.dim is not None and args.dim < 1:
        raise BenchError("--dim must be at least 1")
    graph, _ = assemble_graph(context.settings, with_hpo=not args.no_hpo)
    out = {"graph": "FPKG" if args.no_hpo else "FPKG+HPO", **check(graph, dim=args.dim, upstream=args.upstream)}
    variant = variant_name("fpkg" if args.no_hpo else "fpkg_hpo", f"dim{out['dim']}", args.upstream and "upstream")
    return variant, out, summary(out)
