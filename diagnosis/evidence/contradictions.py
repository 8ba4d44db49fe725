"""Findings that contradict the disease, as log likelihood ratios (LIRICAL's manner): a finding the
patient lacks that the disease shows, a present one HPO says it lacks (`diagnosis.phenotype_match`).
Their mean over the patient's findings: on the annotation match's scale, not a sum that grows with
the number of findings. A negative part."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part


class Contradictions(EvidenceKind):
    name = "contradicted"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        contradicted = case.matched.at(case.against, disease) / max(case.findings, 1)
        if contradicted >= 0:
            return None
        return Part(contradicted, f"contradicted by the findings (log likelihood ratio {contradicted:.2f}): a "
                                  "finding the patient lacks that it shows, or one HPO says it lacks")
