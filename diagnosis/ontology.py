"""Phenotype semantic similarity over HPO's whole ontology, with FPKG's own facial phenotypes beside it.

Terms are numbered: HPO's phenotype terms first (`kg_dump.hpo_profiles`), then the graph's facial
phenotypes that HPO lacks (FPKG's own names), which have no ancestors and the median information
content, so they only match themselves. Resnik similarity: the information content (IC) of the most
informative common ancestor. A term HPO annotates no OMIM disease with (IC 0 but for the root) gets
the median too, as an unknown term.
"""

from __future__ import annotations

import statistics
from functools import lru_cache

import numpy as np
from scipy import sparse

from graphstore.store import GraphStore
from kg_dump.hpo_profiles import HpoProfiles

ROOT = "HP:0000118"  # Phenotypic abnormality
_TERMS = "MATCH (p:FacePhenotype) RETURN p.nid AS id, p.hpo_id AS hpo_id"


class PhenotypeOntology:
    def __init__(self, hpo: HpoProfiles, graph_terms: list[dict]):
        """`graph_terms`: the graph's facial phenotype nodes as rows {id, hpo_id}."""
        self.hpo_ids: list[str | None] = list(hpo.terms)
        self.index_of_hpo = dict(hpo.index)
        self.node_term: dict[int, int] = {}  # a graph phenotype node -> its term
        for row in sorted(graph_terms, key=lambda r: r["id"]):
            term = self.index_of_hpo.get(row["hpo_id"] or "")
            if term is None:
                term = len(self.hpo_ids)
                self.hpo_ids.append(None)
            self.node_term[row["id"]] = term
        self.term_node = {term: node for node, term in self.node_term.items()}
        extra = len(self.hpo_ids) - len(hpo.terms)
        self.names: list[str] = [*hpo.names, *[""] * extra]  # HPO's labels (FPKG's own terms: see the graph)
        self.parents: list[tuple[int, ...]] = [*hpo.parents, *[()] * extra]
        known = hpo.ic[hpo.ic > 0]
        median = float(statistics.median(known.tolist())) if len(known) else 1.0
        self.ic = np.concatenate([np.where(hpo.ic > 0, hpo.ic, median), np.full(extra, median)]).astype(np.float32)
        if ROOT in self.index_of_hpo:  # the root is shared by every term: no information
            self.ic[self.index_of_hpo[ROOT]] = 0.0
        self.facial = np.concatenate([hpo.facial, np.ones(extra, dtype=bool)])
        self.is_below = self._is_below()  # (ancestor, term): the ancestor is the term or above it
        self._above = self.is_below.tocsc()  # a term's column: its ancestors

    @classmethod
    def from_store(cls, store: GraphStore, hpo: HpoProfiles) -> PhenotypeOntology:
        return cls(hpo, store.query(_TERMS, timeout_ms=60_000))

    def __len__(self) -> int:
        return len(self.hpo_ids)

    def _is_below(self) -> sparse.csr_matrix:
        ancestors: list[set[int]] = [set() for _ in self.parents]
        for term in self._parents_first():
            ancestors[term] = {term}.union(*(ancestors[p] for p in self.parents[term]))
        rows = [a for found in ancestors for a in found]
        columns = [term for term, found in enumerate(ancestors) for _ in found]
        return sparse.csr_matrix((np.ones(len(rows), dtype=bool), (rows, columns)), shape=(len(self), len(self)))

    def _parents_first(self) -> list[int]:
        """Every term after all its parents (is_a has no cycle)."""
        order, done = [], [False] * len(self.parents)
        for start in range(len(self.parents)):
            stack = [(start, False)]
            while stack:
                term, expanded = stack.pop()
                if done[term]:
                    continue
                if expanded:
                    done[term] = True
                    order.append(term)
                    continue
                stack.append((term, True))
                stack.extend((p, False) for p in self.parents[term] if not done[p])
        return order

    def ancestors(self, term: int) -> np.ndarray:
        """The term and every term above it."""
        return self._above.indices[self._above.indptr[term]:self._above.indptr[term + 1]]

    def below(self, term: int) -> np.ndarray:
        """The term and every term under it."""
        return self.is_below.indices[self.is_below.indptr[term]:self.is_below.indptr[term + 1]]

    @lru_cache(maxsize=512)  # noqa: B019 - one ontology per process; rows are reused across cases
    def resnik_row(self, term: int) -> np.ndarray:
        """Resnik similarity of `term` to every term: the IC of their most informative common ancestor."""
        above = self.ancestors(term)
        below = self.is_below[above]  # for each ancestor, the terms under it (a matrix: one product)
        weighted = below.multiply(self.ic[above][:, None]).tocsc()
        return np.asarray(weighted.max(axis=0).todense(), dtype=np.float32).ravel()

    def resnik_rows(self, terms: list[int]) -> np.ndarray:
        return np.stack([self.resnik_row(term) for term in terms])
