"""Patients like this one: the disease's published patients (FPKG's and phenopacket-store's, a held-out
paper's left out) most similar to the case, by the same best-match similarity as the annotation match
(`diagnosis.published_patients`). Its value is the similarity of the disease's most similar patient (how
many such patients there are is the look-alikes' vote, `lookalikes.py`)."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part

NEAREST = 2  # the nearest is the value; the next is said beside it


class SimilarPatients(EvidenceKind):
    name = "patients"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        if case.patients is None or not case.present:
            return None
        nearest = case.patients.nearest(disease, NEAREST)
        if not nearest:
            return None
        best = nearest[0]
        return Part(best.similarity, f"its published patient most like this one: similarity {best.similarity:.2f} "
                                     f"({best.patient.sid}, {_shared(len(best.shared))})"
                                     + (f", then {nearest[1].similarity:.2f}" if len(nearest) > 1 else ""))


def _shared(count: int) -> str:
    """What the similarity rests on: findings the two share, or (none the same) findings alike."""
    if count == 0:
        return "through findings alike, none the same"
    return f"{count} finding{'s' if count > 1 else ''} the same"
