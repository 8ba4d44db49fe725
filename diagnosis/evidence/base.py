"""The one shape every kind of evidence has: for each candidate disease, a value and the words it rests on.

A kind reads the case's shared evidence (`CaseEvidence`: the linked findings, the gene's graph facts,
the annotation match, the published patients' similarity) and may propose candidates of its own. The
ranker adds each kind's value times its weight (`diagnosis/evidence/weights.json`, fitted on
development cases by `python -m bench fit-weights`) and shows each part in the ranked table, as
Exomiser's prioritisers or LIRICAL's likelihood ratios are shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from diagnosis.ontology import PhenotypeOntology
from diagnosis.phenotype_match import PhenotypeScores
from diagnosis.profile_match import ProfileScores
from diagnosis.profiles import DiseaseProfiles
from diagnosis.published_patients import CasePatients, PublishedPatients
from diagnosis.queries import DiagnosisEvidence
from kg_dump.cardinal import is_cardinal
from retrieval.hold_out import HoldOut
from retrieval.result import Link


@dataclass(frozen=True)
class Part:
    value: float  # on the kind's own scale (its weight turns it into score)
    line: str  # what it rests on, in words a clinician reads


@dataclass(frozen=True)
class Knowledge:
    """What every case is judged against, read once at start."""

    ontology: PhenotypeOntology
    profiles: DiseaseProfiles
    published: PublishedPatients
    cardinal: dict[int, tuple[int, ...]]  # disease node -> its cardinal findings (kg_dump.cardinal), ontology terms

    def cardinal_of(self, disease: int, hold_out: HoldOut) -> tuple[int, ...]:
        """The disease's cardinal findings, from its annotation less a held-out paper's own lines."""
        if disease not in hold_out.held_lines.terms:
            return self.cardinal.get(disease, ())
        return cardinal_terms(self.ontology, self.profiles.terms(disease, hold_out))


def cardinal_terms(ontology: PhenotypeOntology, terms: Mapping[int, float]) -> tuple[int, ...]:
    """The cardinal findings among a disease's annotated terms (`kg_dump.cardinal`: very frequent in it, rare
    elsewhere)."""
    return tuple(t for t, f in terms.items() if is_cardinal(f, float(ontology.ic[t])))


@dataclass
class CaseEvidence:
    """What the kinds read for one case: computed once, before any kind scores a disease."""

    knowledge: Knowledge
    present: list[int]  # the patient's present findings (ontology terms)
    absent: list[int]  # the findings it lacks
    gene: Link | None  # the patient's gene, when the graph knows it
    variants: list[int]  # the graph's variant nodes the patient's variant text links to
    hold_out: HoldOut
    whole: bool  # a finding beside the face was given: whole profiles are compared
    matched: PhenotypeScores  # every disease's annotation match
    against: np.ndarray  # every disease's log likelihood ratio from contradicting findings
    graph: DiagnosisEvidence = field(default_factory=DiagnosisEvidence)  # the gene's facts, names
    patients: CasePatients | None = None  # the published patients against this case's findings, when any
    profile: ProfileScores | None = None  # annotations and published patients together, against the findings
    age_years: float | None = None
    sex: str | None = None  # female, male or None
    extra: dict = field(default_factory=dict)  # what one kind computes once per case for itself

    @property
    def findings(self) -> int:
        return len(self.present) + len(self.absent)


class EvidenceKind:
    """One kind of evidence. `name` is its part's name in the ranked table."""

    name = ""

    def candidates(self, case: CaseEvidence) -> set[int]:
        """Diseases this kind brings into the ranking (besides the gene's and the options)."""
        return set()

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        """This kind's value for `disease`, or None when it says nothing of it."""
        raise NotImplementedError
