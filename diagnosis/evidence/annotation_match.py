"""How well the patient's findings match the disease's annotations (HPO's, FPKG's, curated): the
symmetric Resnik best-match similarity of `diagnosis.phenotype_match`, in [0, 1]."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part

PHENOTYPE_CANDIDATES = 60  # the best matches among all diseases, added to the gene's


class AnnotationMatch(EvidenceKind):
    name = "phenotype"

    def candidates(self, case: CaseEvidence) -> set[int]:
        return set(case.matched.best(PHENOTYPE_CANDIDATES))

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        similarity, exact, annotated = case.matched.of(disease)
        if not case.present or not annotated:
            return None
        return Part(similarity, f"{exact} of {len(case.present)} findings annotated exactly, similarity "
                                f"{similarity:.2f} over {annotated} annotated findings")
