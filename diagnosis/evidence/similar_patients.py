"""Patients like this one: the disease's published patients (FPKG's and phenopacket-store's, a held-out
paper's left out) most similar to the case, by the same best-match similarity as the annotation match
(`diagnosis.published_patients`). Its value is the mean similarity of the disease's `NEAREST` most
similar patients (a missing one counts 0): one look-alike patient is weaker evidence than several."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part

NEAREST = 2
CANDIDATES = 30  # the diseases of the 30 patients most like the case join the candidates


class SimilarPatients(EvidenceKind):
    name = "patients"

    def candidates(self, case: CaseEvidence) -> set[int]:
        return case.patients.nearest_diseases(CANDIDATES) if case.patients is not None and case.present else set()

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        if case.patients is None or not case.present:
            return None
        nearest = case.patients.nearest(disease, NEAREST)
        if not nearest:
            return None
        value = sum(found.similarity for found in nearest) / NEAREST
        best = nearest[0]
        return Part(value, f"its published patients most like this one: similarity {best.similarity:.2f} "
                           f"({best.patient.sid}, {len(best.shared)} findings shared)"
                           + (f", then {nearest[1].similarity:.2f}" if len(nearest) > 1 else ""))
