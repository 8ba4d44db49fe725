"""Rows of ontology terms (each disease's annotations, each published patient's findings) and the
best-match similarity of a patient's terms to every row at once.

Resnik similarity (the information content of the most informative common ancestor) of best
matches in both directions, as Phenomizer computes it, with the directions weighted:

    patient → row: mean over patient terms q of  max over row terms d  Resnik(q, d) / IC(q)
    row → patient: mean over row terms d of  max over patient terms q  Resnik(q, d) / IC(d)
    match = w × patient → row + (1 − w) × row → patient,  in [0, 1]
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy import sparse

from diagnosis.ontology import PhenotypeOntology


class TermRows:
    def __init__(self, ontology: PhenotypeOntology, terms_of: list[set[int]], values: list[dict] | None = None):
        """`terms_of`: each row's terms; `values`: each row's term -> a value kept in `matrix` instead of 1
        (a frequency; NaN or missing: 0, told apart by the caller)."""
        self.ontology = ontology
        sizes = [len(terms) for terms in terms_of]
        rows = np.repeat(np.arange(len(terms_of)), sizes)
        cols = np.fromiter((term for terms in terms_of for term in terms), dtype=np.int64, count=sum(sizes))
        if values:
            data = np.fromiter((values[row].get(term, np.nan) for row, terms in enumerate(terms_of) for term in terms),
                               dtype=np.float32, count=len(cols))
            data[np.isnan(data)] = 0.0
        else:
            data = np.ones(len(cols), dtype=np.float32)
        self.matrix = sparse.csr_matrix((data, (rows, cols)), shape=(len(terms_of), len(ontology)))
        self.matrix.sort_indices()
        self.sizes = np.diff(self.matrix.indptr)
        self._closure: sparse.csc_matrix | None = None

    def __len__(self) -> int:
        return self.matrix.shape[0]

    @property
    def closure(self) -> sparse.csc_matrix:
        """Row × term: the terms at or above one of the row's terms. A patient term's best match with a
        row is its most informative ancestor in there, found one ancestor column at a time (a few
        thousand rows each) instead of one pass over every annotation per patient term."""
        if self._closure is None:
            ones = self.matrix.astype(np.float32)
            ones.data[:] = 1.0
            self._closure = (ones @ self.ontology.is_below.T.astype(np.float32)).astype(bool).tocsc()
        return self._closure

    @lru_cache(maxsize=512)  # noqa: B019 - a few sets of rows per process; a term's row is reused across cases
    def best_matches(self, term: int) -> np.ndarray:
        return self.best_matches_once(term)

    def best_matches_once(self, term: int) -> np.ndarray:
        """The term's best match with every row: the IC of its most informative ancestor among the row's
        terms' ancestors, the ancestors taken from the least informative up so the most informative is
        written last."""
        best = np.zeros(len(self), dtype=np.float32)
        closure, ontology = self.closure, self.ontology
        above = ontology.ancestors(term)
        for ancestor in above[np.argsort(ontology.ic[above], kind="stable")]:
            best[closure.indices[closure.indptr[ancestor]:closure.indptr[ancestor + 1]]] = ontology.ic[ancestor]
        return best

    def similarity(self, terms: list[int], raw: np.ndarray, patient_side: float,
                   cached: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """(symmetric similarity, exactly shared terms) of every row to the patient's `terms`, whose
        Resnik rows against every term are `raw`; `cached`: keep each term's best matches for later
        cases (off for rows made for one case)."""
        find = self.best_matches if cached else self.best_matches_once
        best = np.stack([find(term) for term in terms])
        ic = self.ontology.ic
        indptr, indices = self.matrix.indptr, self.matrix.indices
        rows = np.flatnonzero(self.sizes)
        to_patient = np.zeros(len(self), dtype=np.float32)
        exact = np.zeros(len(self), dtype=np.int64)
        to_row = (best / ic[terms][:, None]).mean(axis=0)
        if len(rows):
            starts = indptr[:-1][rows]
            # each row term's best patient match, divided by the row term's IC (the root matches nothing)
            best_for_term = raw.max(axis=0) / np.where(ic > 0, ic, np.inf)
            to_patient[rows] = np.add.reduceat(best_for_term[indices], starts) / self.sizes[rows]
            is_patient_term = np.zeros(len(ic), dtype=np.int64)
            is_patient_term[terms] = 1
            exact[rows] = np.add.reduceat(is_patient_term[indices], starts)
        match = np.minimum(patient_side * to_row + (1 - patient_side) * to_patient, 1.0).astype(np.float32)
        return match, exact


def usable_terms(ontology: PhenotypeOntology, terms: list[int]) -> list[int]:
    """The terms that can be matched: in the ontology, and saying something (IC above 0)."""
    return list(dict.fromkeys(t for t in terms if 0 <= t < len(ontology) and ontology.ic[t] > 0))
