"""The kinds of evidence the differential combines, one module each (`base.EvidenceKind`), and their
weights (`weights.json`, fitted on development cases: `python -m bench fit-weights`): one set for a case
whose gene the graph knows, one for a face described alone, one for findings beside the face, since what
tells diseases apart differs (among a gene's few diseases; against every disease's face, or whole)."""

from __future__ import annotations

import json
from pathlib import Path

from diagnosis.evidence.annotated_exact import AnnotatedExact
from diagnosis.evidence.annotation_match import AnnotationMatch
from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Knowledge, Part
from diagnosis.evidence.breadth import Breadth
from diagnosis.evidence.cardinal_findings import CardinalFindings
from diagnosis.evidence.contradictions import Contradictions
from diagnosis.evidence.gene_link import GeneLink
from diagnosis.evidence.literature import LiteraturePrior
from diagnosis.evidence.lookalikes import LookAlikes
from diagnosis.evidence.missing_cardinal import MissingCardinal
from diagnosis.evidence.patient_fit import PatientFit
from diagnosis.evidence.prevalence import Prevalence
from diagnosis.evidence.profile_exact import ProfileExact
from diagnosis.evidence.profile_match import ProfileMatch
from diagnosis.evidence.similar_patients import SimilarPatients
from diagnosis.evidence.specific_entry import SpecificEntry
from diagnosis.evidence.variant import PublishedVariant

WEIGHTS_PATH = Path(__file__).with_name("weights.json")
# in the order their parts are shown
KINDS: tuple[EvidenceKind, ...] = (GeneLink(), PublishedVariant(), AnnotationMatch(), AnnotatedExact(), ProfileMatch(),
                                   ProfileExact(), Breadth(), CardinalFindings(), MissingCardinal(), SimilarPatients(),
                                   LookAlikes(), Contradictions(), PatientFit(), LiteraturePrior(), Prevalence(),
                                   SpecificEntry())
# the patient's gene known to the graph; else facial findings alone, or findings beside the face too
WEIGHT_SETS = ("gene", "face", "findings")


def weight_set(case: CaseEvidence) -> str:
    return "gene" if case.gene is not None else "findings" if case.whole else "face"


def load_weights(path: Path = WEIGHTS_PATH) -> dict[str, dict[str, float]]:
    """Each set's weight of each kind; a kind a set does not name weighs 0 there (the ranker leaves it out)."""
    sets = json.loads(path.read_text())["weights"]
    return {name: {kind.name: float(sets.get(name, {}).get(kind.name, 0.0)) for kind in KINDS}
            for name in WEIGHT_SETS}


__all__ = ["KINDS", "WEIGHT_SETS", "CaseEvidence", "EvidenceKind", "Knowledge", "Part", "load_weights", "weight_set"]
