"""Phenotype semantic similarity over the graph's `is_a` hierarchy.

Resnik similarity: the information content (IC) of the most informative common ancestor.
IC comes from HPO (annotation frequency over OMIM diseases); phenotypes FPKG alone holds
have no ancestors and get the median IC, so they only match themselves.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from functools import lru_cache

import numpy as np

from graphstore.store import GraphStore

_TERMS = "MATCH (p:FacePhenotype) RETURN p.nid AS id, p.ic AS ic"
_IS_A = "MATCH (c:FacePhenotype)-[:is_a]->(p:FacePhenotype) RETURN c.nid AS child, p.nid AS parent"


class PhenotypeOntology:
    def __init__(self, ic: dict[int, float | None], parents: dict[int, list[int]]):
        known = [value for value in ic.values() if value]
        fallback = statistics.median(known) if known else 1.0
        self.terms = sorted(ic)
        self.index = {term: i for i, term in enumerate(self.terms)}
        self.ic = np.array([ic[t] if ic[t] else fallback for t in self.terms], dtype=np.float32)
        self.parents = parents
        # is_below[a, t]: a is t or one of its ancestors (2,900² booleans, ~8 MB).
        self.is_below = np.zeros((len(self.terms), len(self.terms)), dtype=bool)
        for term, i in self.index.items():
            self.is_below[[self.index[a] for a in self._ancestors(term) if a in self.index], i] = True

    @classmethod
    def from_store(cls, store: GraphStore) -> PhenotypeOntology:
        ic = {row["id"]: row["ic"] for row in store.query(_TERMS, timeout_ms=60_000)}
        parents: dict[int, list[int]] = defaultdict(list)
        for row in store.query(_IS_A, timeout_ms=60_000):
            parents[row["child"]].append(row["parent"])
        return cls(ic, dict(parents))

    def _ancestors(self, term: int) -> set[int]:
        """The term and everything above it."""
        found = {term}
        stack = [term]
        while stack:
            for parent in self.parents.get(stack.pop(), ()):
                if parent not in found:
                    found.add(parent)
                    stack.append(parent)
        return found

    @lru_cache(maxsize=4096)  # noqa: B019 - one ontology per process; rows are reused across cases
    def resnik_row(self, term: int) -> np.ndarray:
        """Resnik similarity of `term` to every term: the IC of their most informative common ancestor."""
        i = self.index.get(term)
        if i is None:
            return np.zeros(len(self.terms), dtype=np.float32)
        ancestors = np.flatnonzero(self.is_below[:, i])
        return (self.is_below[ancestors] * self.ic[ancestors, None]).max(axis=0)

    def resnik_rows(self, terms: list[int]) -> np.ndarray:
        return np.stack([self.resnik_row(term) for term in terms])
