"""The kinds of evidence the differential combines, one module each (`base.EvidenceKind`), and their
weights (`weights.json`, fitted on development cases: `python -m bench fit-weights`)."""

from __future__ import annotations

import json
from pathlib import Path

from diagnosis.evidence.annotation_match import AnnotationMatch
from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Knowledge, Part
from diagnosis.evidence.cardinal_findings import CardinalFindings
from diagnosis.evidence.contradictions import Contradictions
from diagnosis.evidence.gene_link import GeneLink
from diagnosis.evidence.literature import LiteraturePrior
from diagnosis.evidence.patient_fit import PatientFit
from diagnosis.evidence.prevalence import Prevalence
from diagnosis.evidence.similar_patients import SimilarPatients
from diagnosis.evidence.specific_entry import SpecificEntry
from diagnosis.evidence.variant import PublishedVariant

WEIGHTS_PATH = Path(__file__).with_name("weights.json")
# in the order their parts are shown
KINDS: tuple[EvidenceKind, ...] = (GeneLink(), PublishedVariant(), AnnotationMatch(), CardinalFindings(),
                                   SimilarPatients(), Contradictions(), PatientFit(), LiteraturePrior(),
                                   Prevalence(), SpecificEntry())


def load_weights(path: Path = WEIGHTS_PATH) -> dict[str, float]:
    """Each kind's weight; a kind the file does not name weighs 0 (the ranker leaves it out)."""
    weights = json.loads(path.read_text())["weights"]
    return {kind.name: float(weights.get(kind.name, 0.0)) for kind in KINDS}


__all__ = ["KINDS", "CaseEvidence", "EvidenceKind", "Knowledge", "Part", "load_weights"]
