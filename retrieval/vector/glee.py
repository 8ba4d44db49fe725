"""GLEE structure vectors (Torres, Chan & Eliassi-Rad 2020), computed once per graph, and
the per-question refit that the paper's upstream code runs, kept as a timing baseline.

GLEE embeds node i as row i of ``V · diag(sqrt(λ))`` where (λ, V) are the `dim` LARGEST
eigenpairs of the combinatorial Laplacian ``L = D - A`` of the undirected graph: the
rows are then a geometric (simplex) representation of L, and dot products between rows
approximate the Laplacian entries, i.e. adjacency and degree.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import eigsh

DEFAULT_DIM = 32
DENSE_MAX_NODES = 500
UPSTREAM_DIM = 128  # karateclub's GLEE default, which the upstream code uses unchanged


def adjacency(n_nodes: int, edges: np.ndarray) -> sp.csr_matrix:
    """Symmetric 0/1 adjacency from (m, 2) row indices: direction, relationship type,
    multi-edges and self-loops dropped, as an undirected simple graph (like nx.Graph)."""
    edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    edges = edges[edges[:, 0] != edges[:, 1]]
    rows = np.concatenate([edges[:, 0], edges[:, 1]])
    cols = np.concatenate([edges[:, 1], edges[:, 0]])
    ones = np.ones(len(rows), dtype=np.float64)
    adj = sp.coo_matrix((ones, (rows, cols)), shape=(n_nodes, n_nodes)).tocsr()
    adj.data[:] = 1.0  # duplicates were summed
    return adj


def glee(adj: sp.csr_matrix, dim: int = DEFAULT_DIM, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(vectors (n, dim) float32, eigenvalues (dim,) descending). Isolated nodes get zeros."""
    n = adj.shape[0]
    if not 1 <= dim <= n - 1:
        raise ValueError(f"dim must be in [1, {n - 1}] for a graph of {n} nodes, got {dim}")
    degrees = np.asarray(adj.sum(axis=1)).ravel()
    laplacian = (sp.diags(degrees) - adj).tocsr()
    if n <= DENSE_MAX_NODES:  # ARPACK needs k well below n; small graphs are cheap dense
        values, vectors = np.linalg.eigh(laplacian.toarray())
        values, vectors = values[-dim:], vectors[:, -dim:]
    else:
        # A fixed start vector makes the result repeatable (ARPACK's default is random).
        v0 = np.random.default_rng(seed).uniform(-1.0, 1.0, n)
        # L is positive semi-definite, so its largest-magnitude eigenvalues are the largest
        # ones; at the top of the spectrum Lanczos converges in a few iterations.
        values, vectors = eigsh(laplacian, k=dim, which="LA", v0=v0)
    order = np.argsort(values)[::-1]
    values = np.clip(values[order], 0.0, None)
    vectors = vectors[:, order] * np.sqrt(values)
    # An eigenvector's sign is arbitrary; fix it so cached and fresh runs agree.
    signs = np.sign(vectors[np.abs(vectors).argmax(axis=0), np.arange(dim)])
    vectors *= np.where(signs == 0, 1.0, signs)
    return vectors.astype(np.float32), values


# ---- the upstream per-question refit (baseline only) ------------------------------------

@dataclass(frozen=True)
class RefitResult:
    node_ids: list[int]  # most similar first
    scores: list[float]
    seconds: float


def glee_refit_per_question(node_ids: Sequence[int], edges: Iterable[tuple[int, int]],
                            linked_ids: Iterable[int], *, top_k: int = 20,
                            dim: int = UPSTREAM_DIM, seed: int = 100) -> RefitResult:
    """What the paper's Graph_Vector_RAG.py does for EVERY question, for timing against
    vector mode: rebuild a networkx graph of the whole KG, add a node for the patient
    with an edge to each node the question mentions, fit karateclub's GLEE on it (the
    `dim + 1` largest eigenvectors of the normalised Laplacian, via eigsh), and rank all
    nodes by cosine similarity to the patient node.

    `node_ids`/`edges` are the store's nids (fetched once, as upstream loads its JSON once).
    """
    start = time.perf_counter()
    graph = nx.Graph()
    graph.add_nodes_from(node_ids)
    graph.add_edges_from(edges)
    # upstream keeps only nodes that have a relationship, then renumbers them 0..n-1
    graph.remove_nodes_from([n for n, d in graph.degree() if d == 0])
    patient = -1
    graph.add_node(patient)
    graph.add_edges_from((patient, nid) for nid in linked_ids if nid in graph)
    order = list(graph.nodes())
    graph = nx.relabel_nodes(graph, {nid: i for i, nid in enumerate(order)})
    embedding = upstream_glee(nx.normalized_laplacian_matrix(graph, nodelist=range(len(order))), dim, seed=seed)
    query = embedding[order.index(patient)]
    norms = np.linalg.norm(embedding, axis=1) * (np.linalg.norm(query) or 1.0)
    similarity = embedding @ query / np.where(norms == 0, 1.0, norms)
    ranked = [i for i in np.argsort(-similarity) if order[i] != patient][:top_k]
    return RefitResult([int(order[i]) for i in ranked], [float(similarity[i]) for i in ranked],
                       time.perf_counter() - start)


def normalized_laplacian(adj: sp.csr_matrix) -> sp.csr_matrix:
    """``I - D^-1/2 A D^-1/2`` (zero rows for isolated nodes), as networkx computes it."""
    degrees = np.asarray(adj.sum(axis=1)).ravel()
    inv_sqrt = np.divide(1.0, np.sqrt(degrees), out=np.zeros_like(degrees), where=degrees > 0)
    scaled = sp.diags(inv_sqrt) @ adj @ sp.diags(inv_sqrt)
    return (sp.diags((degrees > 0).astype(float)) - scaled).tocsr()


def upstream_glee(laplacian: sp.spmatrix, dim: int = UPSTREAM_DIM, *, seed: int = 100) -> np.ndarray:
    """karateclub's GLEE as the upstream code calls it: the `dim + 1` largest-magnitude
    eigenvectors of the NORMALISED Laplacian, not scaled by their eigenvalues (a departure
    from the paper's definition). 129 eigenvectors need a large Lanczos basis, and the top
    of this spectrum is crowded (several eigenvalues exactly 2, one per bipartite
    component): on FPKG ~40x slower than 33 eigenvectors."""
    n = laplacian.shape[0]
    v0 = np.random.default_rng(seed).uniform(-1.0, 1.0, n)
    _, vectors = eigsh(laplacian, k=min(dim + 1, n - 2), which="LM", v0=v0)
    return vectors
