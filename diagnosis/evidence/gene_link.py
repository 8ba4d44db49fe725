"""The patient's gene is linked to the disease: by HPO, by a published variant (FPKG's or a published
patient's), by published patients' papers, or as a group whose member the gene causes."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part


class GeneLink(EvidenceKind):
    name = "gene"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        if case.gene is None or disease not in case.graph.gene_sources:
            return None
        sources = ", ".join(sorted(case.graph.gene_sources[disease]))
        return Part(1.0, f"{case.gene.name} is linked to {case.graph.name(disease)} ({sources})")
