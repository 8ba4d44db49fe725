"""How well a patient's findings match every disease's profile, all diseases at once, and what
contradicts each disease (a finding the patient lacks, a finding HPO says the disease lacks).

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
The disease's side covers what the patient was examined for: its facial annotations for a patient
described by facial findings alone, its whole annotation once a finding outside the face is given
(a face-only description says nothing of the heart).

Contradictions, as likelihood ratios in the manner of LIRICAL: a finding the patient lacks that the
disease shows in a share f of patients (HPO's frequency; `UNKNOWN_FREQUENCY` when HPO gives none)
weighs log((1 − f) / (1 − b)), b the share of diseases with it (e^−IC), with 1 − f at least
`MIN_ABSENT`; a present finding at or under a term HPO says the disease lacks (a NOT annotation)
weighs log(`NOT_RATIO`).
Annotations made only by excluded papers (a held-out case) are left out.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import sparse

from diagnosis.ontology import PhenotypeOntology
from diagnosis.profiles import DiseaseProfiles

# the patient → disease direction's weight in the match (w above); the other direction has the rest
PATIENT_SIDE = 0.7
PATIENT_SIDE_WITH_GENE = 0.8
UNKNOWN_FREQUENCY = 0.5  # HPO gives no frequency: as often present as absent
MIN_ABSENT = 0.05  # an obligate feature found absent: rare, not impossible (a mild or young patient)
NOT_RATIO = 0.05


@dataclass(frozen=True)
class PhenotypeScores:
    diseases: np.ndarray  # disease node ids
    match: np.ndarray  # symmetric similarity in [0, 1]
    exact: np.ndarray  # how many patient terms the disease is annotated with exactly
    sizes: np.ndarray | None = None  # how many findings each disease is annotated with (in the match's scope)
    findings: int = 0  # the patient's present and absent findings

    def of(self, disease: int) -> tuple[float, int, int]:
        """(similarity, exactly matched findings, annotated findings) of one disease."""
        i = self._row(disease)
        if i is None:
            return 0.0, 0, 0
        return float(self.match[i]), int(self.exact[i]), int(self.sizes[i]) if self.sizes is not None else 0

    def at(self, values: np.ndarray, disease: int) -> float:
        """A per-disease array's value for one disease (0 when the disease has no row)."""
        i = self._row(disease)
        return float(values[i]) if i is not None else 0.0

    def _row(self, disease: int) -> int | None:
        i = int(np.searchsorted(self.diseases, disease))
        return i if i < len(self.diseases) and self.diseases[i] == disease else None

    def best(self, limit: int) -> list[int]:
        """The `limit` best-matching diseases, ties by more exact matches, then node id."""
        order = np.lexsort((self.diseases, -self.exact, -self.match))
        return [int(self.diseases[i]) for i in order[:limit] if self.match[i] > 0]


class PhenotypeMatcher:
    def __init__(self, ontology: PhenotypeOntology, profiles: DiseaseProfiles):
        self.ontology, self.profiles = ontology, profiles
        self.diseases = np.array(sorted(set(profiles.by_disease) | set(profiles.hpo_terms)), dtype=np.int64)
        nodes = self.diseases.tolist()
        self.facial = self._incidence({d: self._graph_terms(profiles.annotations(d)) for d in nodes})
        self.whole = self._incidence({d: self._whole_terms(d) for d in nodes})
        self.closures = {False: self._closure(self.facial), True: self._closure(self.whole)}
        self.frequencies = self._incidence({d: self._whole_terms(d) for d in nodes}, frequencies=True)
        self.lacking: dict[int, list[int]] = {}  # a term -> the rows of the diseases HPO says lack it
        for row, disease in enumerate(nodes):
            for term in profiles.hpo_excluded.get(disease, ()):
                self.lacking.setdefault(term, []).append(row)

    def _graph_terms(self, annotations) -> set[int]:
        return {self.ontology.node_term[a.phenotype] for a in annotations if a.phenotype in self.ontology.node_term}

    def _whole_terms(self, disease: int, exclude_pmids: frozenset[int] = frozenset()) -> set[int]:
        return self._graph_terms(self.profiles.annotations(disease, exclude_pmids)) | set(
            self.profiles.hpo_terms.get(disease, ()))

    def _incidence(self, terms_of: dict[int, set[int]], frequencies: bool = False) -> sparse.csr_matrix:
        """Disease × term matrix, rows in the order of `terms_of`: 1 per annotation, or its frequency."""
        rows, cols, data = [], [], []
        for row, (disease, terms) in enumerate(terms_of.items()):
            known = self.profiles.hpo_terms.get(disease, {})
            for term in sorted(terms):
                rows.append(row)
                cols.append(term)
                value = known.get(term, np.nan) if frequencies else 1.0
                data.append(0.0 if np.isnan(value) else value)  # not given: told apart at query time
        shape = (len(terms_of), len(self.ontology))
        return sparse.csr_matrix((np.array(data, dtype=np.float32), (rows, cols)), shape=shape)

    def _closure(self, matrix: sparse.csr_matrix) -> sparse.csc_matrix:
        """Disease × term: the terms at or above one of the disease's annotations. A patient term's best
        match with a disease is its most informative ancestor in there, found one ancestor column at a
        time (a few thousand rows each) instead of one pass over every annotation per patient term."""
        ones = matrix.astype(np.float32)
        ones.data[:] = 1.0
        return (ones @ self.ontology.is_below.T.astype(np.float32)).astype(bool).tocsc()

    @lru_cache(maxsize=512)  # noqa: B019 - one matcher per process; a term's row is reused across cases
    def _best_matches(self, term: int, whole: bool) -> np.ndarray:
        return _best_matches(self.ontology, self.closures[whole], [term])[0]

    def scores(self, patient: list[int], exclude_pmids: frozenset[int] = frozenset(), *,
               gene_known: bool = False, whole: bool = False) -> PhenotypeScores:
        """`patient`: its present findings' terms; `gene_known`: the patient's gene is in the graph, so
        its diseases are the contest; `whole`: a finding outside the face was given (see above)."""
        side = PATIENT_SIDE_WITH_GENE if gene_known else PATIENT_SIDE
        terms = list(dict.fromkeys(t for t in patient if 0 <= t < len(self.ontology) and self.ontology.ic[t] > 0))
        if not terms:
            zeros = np.zeros(len(self.diseases), dtype=np.float32)
            return PhenotypeScores(self.diseases, zeros, zeros.astype(np.int64), zeros.astype(np.int64))
        raw = self.ontology.resnik_rows(terms)  # (patient terms, all terms)
        matrix = self.whole if whole else self.facial
        best = np.stack([self._best_matches(term, whole) for term in terms])
        match, exact = _match(matrix, best, self.ontology.ic, raw, terms, side)
        sizes = np.diff(matrix.indptr)
        touched = self.profiles.diseases_citing(exclude_pmids)
        if touched:  # recompute the few diseases a held-out paper annotated, without its annotations
            kept = {d: self._whole_terms(d, exclude_pmids) if whole else
                    self._graph_terms(self.profiles.annotations(d, exclude_pmids)) for d in sorted(touched)}
            incidence = self._incidence(kept)
            best = _best_matches(self.ontology, self._closure(incidence), terms)
            sub_match, sub_exact = _match(incidence, best, self.ontology.ic, raw, terms, side)
            rows = np.searchsorted(self.diseases, list(kept))
            match[rows], exact[rows] = sub_match, sub_exact
            sizes = sizes.copy()
            sizes[rows] = [len(kept[d]) for d in kept]
        return PhenotypeScores(self.diseases, match, exact, sizes)

    def contradictions(self, present: list[int], absent: list[int]) -> np.ndarray:
        """Each disease's log likelihood ratio from findings that contradict it (0: none; see above)."""
        found = np.zeros(len(self.diseases), dtype=np.float32)
        closure = self.closures[True]
        for term in dict.fromkeys(absent):
            rows = closure.indices[closure.indptr[term]:closure.indptr[term + 1]]  # the diseases showing it
            if not len(rows):
                continue
            below = np.zeros(len(self.ontology), dtype=bool)
            below[self.ontology.below(term)] = True
            shown = self.frequencies[rows]
            known = np.where(below[shown.indices], shown.data, 0.0)
            share = np.maximum.reduceat(known, shown.indptr[:-1]) if len(known) else np.zeros(len(rows))
            share[share == 0] = UNKNOWN_FREQUENCY  # shown, with no frequency given
            background = min(float(np.exp(-self.ontology.ic[term])), 1 - MIN_ABSENT)
            found[rows] += np.log(np.maximum(1 - share, MIN_ABSENT) / (1 - background))
        above = {a for term in present for a in self.ontology.ancestors(term).tolist()}
        for term in above & self.lacking.keys():
            np.add.at(found, self.lacking[term], np.log(NOT_RATIO))
        return found


def _best_matches(ontology: PhenotypeOntology, closure: sparse.csc_matrix, terms: list[int]) -> np.ndarray:
    """(terms × diseases): each term's best match with each disease, the IC of its most informative
    ancestor among the disease's annotations' ancestors (`closure`), the ancestors taken from the
    least informative up so that the most informative is written last."""
    best = np.zeros((len(terms), closure.shape[0]), dtype=np.float32)
    for i, term in enumerate(terms):
        above = ontology.ancestors(term)
        for ancestor in above[np.argsort(ontology.ic[above], kind="stable")]:
            best[i, closure.indices[closure.indptr[ancestor]:closure.indptr[ancestor + 1]]] = ontology.ic[ancestor]
    return best


def _match(matrix: sparse.csr_matrix, best: np.ndarray, ic: np.ndarray, raw: np.ndarray, columns: list[int],
           patient_side: float):
    """(symmetric similarity, exact matches) of each row of `matrix` against the patient terms
    `columns`, whose best matches with each disease are `best` and whose Resnik rows are `raw`."""
    indptr, indices = matrix.indptr, matrix.indices
    sizes = np.diff(indptr)
    rows = np.flatnonzero(sizes)
    starts = indptr[:-1][rows]
    to_patient = np.zeros(matrix.shape[0], dtype=np.float32)
    exact = np.zeros(matrix.shape[0], dtype=np.int64)
    to_disease = (best / ic[columns][:, None]).mean(axis=0)
    if len(rows):
        # each annotation's best patient match, divided by the annotation's IC
        best_for_term = raw.max(axis=0) / np.where(ic > 0, ic, np.inf)  # the root matches nothing
        to_patient[rows] = np.add.reduceat(best_for_term[indices], starts) / sizes[rows]
        is_patient_term = np.zeros(len(ic), dtype=np.int64)
        is_patient_term[columns] = 1
        exact[rows] = np.add.reduceat(is_patient_term[indices], starts)
    match = np.minimum(patient_side * to_disease + (1 - patient_side) * to_patient, 1.0).astype(np.float32)
    return match, exact
