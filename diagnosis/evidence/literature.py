"""The literature as a prior: the share of published patients with the patient's gene who had the disease,
two more patients of unknown disease counted in (one published patient is weak evidence of what a gene
usually causes). It fades to nothing as another disease of the gene fits the patient's findings better
by up to `FIT_MARGIN` of the annotation match, so that it never outranks a clearly better fit."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part

UNPUBLISHED_CASES = 2
FIT_MARGIN = 0.1


class LiteraturePrior(EvidenceKind):
    name = "cases"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        graph = case.graph
        cases = graph.case_diseases.get(disease, 0)
        if not cases or not graph.case_total:
            return None
        fades = 1.0
        if case.present:
            similarity = case.matched.of(disease)[0]
            fades = max(0.0, 1 - (self._best_fit(case) - similarity) / FIT_MARGIN)
        return Part(fades * cases / (graph.case_total + UNPUBLISHED_CASES),
                    f"{cases} of {graph.case_total} published patients with the gene had it")

    @staticmethod
    def _best_fit(case: CaseEvidence) -> float:
        """The best annotation match among the gene's diseases (once per case)."""
        if "best_fit" not in case.extra:
            case.extra["best_fit"] = max((case.matched.of(d)[0] for d in case.graph.gene_sources), default=0.0)
        return case.extra["best_fit"]
