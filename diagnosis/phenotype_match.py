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
Annotations made only by held-out papers (a held-out case's own: `retrieval.hold_out`) are left out of the
match and the contradictions of the few diseases they annotate.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from diagnosis.ontology import PhenotypeOntology
from diagnosis.profiles import DiseaseProfiles
from diagnosis.term_rows import TermRows, usable_terms
from retrieval.hold_out import NOTHING_HELD_OUT, HoldOut

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
    rows: dict[int, int] | None = field(default=None, compare=False, repr=False)  # disease -> its row, when known

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
        if self.rows is not None:  # a dictionary look-up: a case asks for hundreds of diseases
            return self.rows.get(disease)
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
        self.row_of = {disease: row for row, disease in enumerate(nodes)}
        whole_terms = [self.whole_terms(d) for d in nodes]
        self.rows = {False: TermRows(ontology, [self._graph_terms(profiles.annotations(d)) for d in nodes]),
                     True: TermRows(ontology, whole_terms)}
        self.frequencies = TermRows(ontology, whole_terms, [profiles.hpo_terms.get(d, {}) for d in nodes]).matrix
        self.lacking: dict[int, list[int]] = {}  # a term -> the rows of the diseases HPO says lack it
        for row, disease in enumerate(nodes):
            for term in profiles.hpo_excluded.get(disease, ()):
                self.lacking.setdefault(term, []).append(row)

    def _graph_terms(self, annotations) -> set[int]:
        return {self.ontology.node_term[a.phenotype] for a in annotations if a.phenotype in self.ontology.node_term}

    def whole_terms(self, disease: int, hold_out: HoldOut = NOTHING_HELD_OUT) -> set[int]:
        return self._graph_terms(self.profiles.annotations(disease, hold_out)) | set(
            self.profiles.terms(disease, hold_out))

    def scores(self, patient: list[int], hold_out: HoldOut = NOTHING_HELD_OUT, *,
               gene_known: bool = False, whole: bool = False) -> PhenotypeScores:
        """`patient`: its present findings' terms; `gene_known`: the patient's gene is in the graph, so
        its diseases are the contest; `whole`: a finding outside the face was given (see above)."""
        side = PATIENT_SIDE_WITH_GENE if gene_known else PATIENT_SIDE
        terms = usable_terms(self.ontology, patient)
        if not terms:
            zeros = np.zeros(len(self.diseases), dtype=np.float32)
            return PhenotypeScores(self.diseases, zeros, zeros.astype(np.int64), zeros.astype(np.int64),
                                   rows=self.row_of)
        raw = self.ontology.resnik_rows(terms)  # (patient terms, all terms)
        rows = self.rows[whole]
        match, exact = rows.similarity(terms, raw, side)
        sizes = rows.sizes
        touched = self._known(self.profiles.diseases_citing(hold_out))
        if touched:  # recompute the few diseases a held-out paper annotated, without its annotations
            kept = {d: self.whole_terms(d, hold_out) if whole else
                    self._graph_terms(self.profiles.annotations(d, hold_out)) for d in touched}
            sub_match, sub_exact = TermRows(self.ontology, list(kept.values())).similarity(terms, raw, side,
                                                                                          cached=False)
            at = np.searchsorted(self.diseases, list(kept))
            match[at], exact[at] = sub_match, sub_exact
            sizes = sizes.copy()
            sizes[at] = [len(kept[d]) for d in kept]
        return PhenotypeScores(self.diseases, match, exact, sizes, rows=self.row_of)

    def contradictions(self, present: list[int], absent: list[int],
                       hold_out: HoldOut = NOTHING_HELD_OUT) -> np.ndarray:
        """Each disease's log likelihood ratio from findings that contradict it (0: none; see above)."""
        found = np.zeros(len(self.diseases), dtype=np.float32)
        closure = self.rows[True].closure
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
            found[rows] += np.log(np.maximum(1 - share, MIN_ABSENT) / (1 - self._background(term)))
        above = {a for term in present for a in self.ontology.ancestors(term).tolist()}
        for term in above & self.lacking.keys():
            np.add.at(found, self.lacking[term], np.log(NOT_RATIO))
        if hold_out.whole_paper and (touched := self._known(self.profiles.diseases_citing(hold_out))):
            # the few diseases a held-out paper annotated, again without its annotations (one at a time)
            at = np.searchsorted(self.diseases, touched)
            found[at] = [self._against(d, hold_out, above, absent) for d in touched]
        return found

    def _background(self, term: int) -> float:
        """The share of diseases with the term (e^-IC), below 1 − MIN_ABSENT."""
        return min(float(np.exp(-self.ontology.ic[term])), 1 - MIN_ABSENT)

    def _against(self, disease: int, hold_out: HoldOut, above: set[int], absent: list[int]) -> float:
        """One disease's contradictions (as `contradictions` computes them for all), its annotations held out."""
        shown, frequencies = self.whole_terms(disease, hold_out), self.profiles.terms(disease, hold_out)
        value = 0.0
        for term in dict.fromkeys(absent):
            below = set(self.ontology.below(term).tolist())
            if not below & shown:
                continue
            share = max((f for t in below & shown if (f := frequencies.get(t, np.nan)) > 0), default=0.0)
            share = share or UNKNOWN_FREQUENCY  # shown, with no frequency given
            value += float(np.log(max(1 - share, MIN_ABSENT) / (1 - self._background(term))))
        return value + len(above & set(self.profiles.excluded(disease, hold_out))) * float(np.log(NOT_RATIO))

    def _known(self, diseases: set[int]) -> list[int]:
        """The diseases among these that the match has a row for, in order."""
        return [d for d in sorted(diseases) if self._row(d) is not None]

    def _row(self, disease: int) -> int | None:
        i = int(np.searchsorted(self.diseases, disease))
        return i if i < len(self.diseases) and self.diseases[i] == disease else None

