"""Each disease's findings as its annotations and its published patients show them together, and how much of
a patient's findings each disease holds.

The annotation match (`diagnosis.phenotype_match`) reads HPO's and the graph's annotations only: a disease
known through published patients alone (newer than the HPO release), or a finding its patients show that no
annotation names, is missed there. Here a disease's profile is its whole annotation together with every
present finding of its published patients (FPKG's and phenopacket-store's; a held-out paper's left out),
and three figures are read off it for a case:

    information  Σ over the patient's findings q of IC(the most informative term at or above q that the
                 profile holds) / Σ IC(q): the share of what the findings say that the disease explains
                 (Resnik's patient-to-disease best match, each finding weighed by how much it says)
    exact        the share of the patient's findings the profile holds as themselves or a term below them
    size         how many findings the profile holds: a broad one explains much by chance
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from diagnosis.phenotype_match import PhenotypeMatcher
from diagnosis.published_patients import PublishedPatients
from diagnosis.term_rows import TermRows, usable_terms
from retrieval.hold_out import NOTHING_HELD_OUT, HoldOut


@dataclass(frozen=True)
class ProfileScores:
    diseases: np.ndarray  # disease node ids, sorted
    information: np.ndarray  # the share of the findings' information each disease holds, in [0, 1]
    exact: np.ndarray  # the share of the findings each disease holds exactly (or below)
    sizes: np.ndarray  # each profile's number of findings
    rows: dict[int, int] | None = field(default=None, compare=False, repr=False)  # disease -> its row, when known

    def of(self, disease: int) -> tuple[float, float, int] | None:
        """(information, exact, size) of one disease; None when it has no profile."""
        if self.rows is not None:  # a dictionary look-up: a case asks for hundreds of diseases
            i = self.rows.get(disease)
            if i is None:
                return None
        else:
            i = int(np.searchsorted(self.diseases, disease))
            if i >= len(self.diseases) or self.diseases[i] != disease:
                return None
        return float(self.information[i]), float(self.exact[i]), int(self.sizes[i])

    def best(self, limit: int) -> list[int]:
        """The `limit` diseases holding most of the findings' information, ties by exact share, then node."""
        order = np.lexsort((self.diseases, -self.exact, -self.information))
        return [int(self.diseases[i]) for i in order[:limit] if self.information[i] > 0]


class ProfileMatcher:
    def __init__(self, matcher: PhenotypeMatcher, published: PublishedPatients):
        self.ontology, self.matcher, self.published = matcher.ontology, matcher, published
        self.diseases = np.array(sorted(set(matcher.diseases.tolist()) | set(published.of_disease)), dtype=np.int64)
        self.rows = TermRows(self.ontology, [self._profile(d) for d in self.diseases.tolist()])
        self.row_of = {disease: row for row, disease in enumerate(self.diseases.tolist())}

    def _profile(self, disease: int, hold_out: HoldOut = NOTHING_HELD_OUT,
                 held: frozenset[int] | set[int] = frozenset()) -> set[int]:
        """The disease's annotated findings and its published patients' (the `held` patients left out)."""
        terms = self.matcher.whole_terms(disease, hold_out)
        for row in self.published.of_disease.get(disease, ()):
            if row not in held:
                terms |= self.published.terms(int(row))
        return terms

    def scores(self, present: list[int], hold_out: HoldOut = NOTHING_HELD_OUT) -> ProfileScores:
        """Every disease against the patient's present findings; a held-out paper's annotations and
        patients left out of the few profiles they touch."""
        terms = usable_terms(self.ontology, present)
        sizes = self.rows.sizes
        if not terms:
            zeros = np.zeros(len(self.diseases), dtype=np.float32)
            return ProfileScores(self.diseases, zeros, zeros, sizes, rows=self.row_of)
        best = np.stack([self.rows.best_matches(t) for t in terms])
        held = self.published.rows_of_papers(hold_out.pmids)
        touched = self.matcher.profiles.diseases_citing(hold_out) | {
            d for row in held for d in self.published.patients[row].diseases}
        touched = sorted(touched.intersection(self.diseases.tolist()))
        if touched:  # the few profiles a held-out paper touched, made again without it
            kept = [self._profile(d, hold_out, held) for d in touched]
            again = TermRows(self.ontology, kept)
            at = np.searchsorted(self.diseases, touched)
            best[:, at] = np.stack([again.best_matches_once(t) for t in terms])
            sizes = sizes.copy()
            sizes[at] = [len(k) for k in kept]
        ic = self.ontology.ic[terms]
        information = (best.sum(axis=0) / float(ic.sum())).astype(np.float32)
        exact = ((best >= ic[:, None] - 1e-6).sum(axis=0) / len(terms)).astype(np.float32)
        return ProfileScores(self.diseases, information, exact, sizes, rows=self.row_of)
