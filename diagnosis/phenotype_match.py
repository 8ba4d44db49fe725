"""How well a patient's facial phenotypes match every disease's profile, all diseases at once.

Resnik similarity (the information content of the most informative common ancestor) of best
matches in both directions, as Phenomizer computes it, with the directions weighted:

    patient → disease: mean over patient terms q of  max over disease terms d  Resnik(q, d) / IC(q)
    disease → patient: mean over disease terms d of  max over patient terms q  Resnik(q, d) / IC(d)
    match = w × patient → disease + (1 − w) × disease → patient,  in [0, 1]

The first direction alone saturates (every disease annotated with the patient's terms or
their descendants scores 1.0); the second prefers the disease whose profile the patient shows
most of, but favours small profiles: a disease HPO annotates with one facial term scores 1.0 on it
for any patient who has that term. So w = 0.7; with the patient's gene known the contest is among
that gene's allelic disorders, where the second direction mostly rewards a small profile, so
w = 0.8. Both weights were chosen on development cases (RESULTS.md lists the figures).
Annotations made only by excluded papers (a held-out case) are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from diagnosis.ontology import PhenotypeOntology
from diagnosis.profiles import DiseaseProfiles

# the patient → disease direction's weight in the match (w above); the other direction has the rest
PATIENT_SIDE = 0.7
PATIENT_SIDE_WITH_GENE = 0.8


@dataclass(frozen=True)
class PhenotypeScores:
    diseases: np.ndarray  # disease node ids
    match: np.ndarray  # symmetric similarity in [0, 1]
    exact: np.ndarray  # how many patient terms the disease is annotated with exactly

    def of(self, disease: int) -> tuple[float, int]:
        i = np.searchsorted(self.diseases, disease)
        if i < len(self.diseases) and self.diseases[i] == disease:
            return float(self.match[i]), int(self.exact[i])
        return 0.0, 0

    def best(self, limit: int) -> list[int]:
        """The `limit` best-matching diseases, ties by more exact matches, then node id."""
        order = np.lexsort((self.diseases, -self.exact, -self.match))
        return [int(self.diseases[i]) for i in order[:limit] if self.match[i] > 0]


class PhenotypeMatcher:
    def __init__(self, ontology: PhenotypeOntology, profiles: DiseaseProfiles):
        self.ontology, self.profiles = ontology, profiles
        self.diseases = np.array(sorted(profiles.by_disease), dtype=np.int64)
        self.matrix = self._incidence({d: profiles.annotations(d) for d in self.diseases.tolist()})

    def _incidence(self, annotations: dict) -> sparse.csr_matrix:
        """Disease × term 0/1 matrix, rows in the order of `annotations`."""
        rows, cols = [], []
        for row, (_, found) in enumerate(annotations.items()):
            terms = {self.ontology.index[a.phenotype] for a in found if a.phenotype in self.ontology.index}
            rows += [row] * len(terms)
            cols += sorted(terms)
        shape = (len(annotations), len(self.ontology.terms))
        return sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=shape)

    def scores(self, patient: list[int], exclude_pmids: frozenset[int] = frozenset(), *,
               gene_known: bool = False) -> PhenotypeScores:
        """`gene_known`: the patient's gene is in the graph, so its diseases are the contest."""
        side = PATIENT_SIDE_WITH_GENE if gene_known else PATIENT_SIDE
        terms = [t for t in dict.fromkeys(patient) if t in self.ontology.index]
        if not terms:
            zeros = np.zeros(len(self.diseases), dtype=np.float32)
            return PhenotypeScores(self.diseases, zeros, zeros.astype(np.int64))
        raw = self.ontology.resnik_rows(terms)  # (patient terms, all terms)
        columns = [self.ontology.index[t] for t in terms]
        match, exact = _match(self.matrix, raw, self.ontology.ic, columns, side)
        touched = self.profiles.diseases_citing(exclude_pmids)
        if touched:  # recompute the few diseases a held-out paper annotated, without its annotations
            kept = {d: self.profiles.annotations(d, exclude_pmids) for d in sorted(touched)}
            sub_match, sub_exact = _match(self._incidence(kept), raw, self.ontology.ic, columns, side)
            rows = np.searchsorted(self.diseases, list(kept))
            match[rows], exact[rows] = sub_match, sub_exact
        return PhenotypeScores(self.diseases, match, exact)


def _match(matrix: sparse.csr_matrix, raw: np.ndarray, ic: np.ndarray, columns: list[int], patient_side: float):
    """(symmetric similarity, exact matches) of each row of `matrix` against the patient terms
    whose Resnik rows are `raw` and whose term columns are `columns`: one pass over the
    annotations (segment maxima and sums per disease), not one sparse product per term."""
    indptr, indices = matrix.indptr, matrix.indices
    sizes = np.diff(indptr)
    rows = np.flatnonzero(sizes)
    starts = indptr[:-1][rows]
    to_disease = np.zeros(matrix.shape[0], dtype=np.float32)
    to_patient = np.zeros(matrix.shape[0], dtype=np.float32)
    exact = np.zeros(matrix.shape[0], dtype=np.int64)
    if len(rows):
        # each patient term against each annotation, divided by the patient term's IC
        # (annotations × patient terms), contiguous per annotation: the segment maxima run row-wise
        scaled = np.ascontiguousarray((raw / ic[columns][:, None]).T, dtype=np.float32)[indices]
        to_disease[rows] = np.maximum.reduceat(scaled, starts, axis=0).mean(axis=1)
        # each annotation's best patient match, divided by the annotation's IC
        best_for_term = raw.max(axis=0) / ic
        to_patient[rows] = np.add.reduceat(best_for_term[indices], starts) / sizes[rows]
        is_patient_term = np.zeros(len(ic), dtype=np.int64)
        is_patient_term[columns] = 1
        exact[rows] = np.add.reduceat(is_patient_term[indices], starts)
    match = np.minimum(patient_side * to_disease + (1 - patient_side) * to_patient, 1.0).astype(np.float32)
    return match, exact
