"""The share of the patient's findings that the disease's annotations (HPO's, FPKG's, curated) name exactly:
what its curators wrote down, apart from what its published patients show."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part


class AnnotatedExact(EvidenceKind):
    name = "annotated"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        _, exact, _ = case.matched.of(disease)
        if not exact or not case.present:
            return None
        return Part(exact / len(case.present), f"{exact} of {len(case.present)} findings in its annotations as named")
