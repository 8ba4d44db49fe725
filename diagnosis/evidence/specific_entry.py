"""An OMIM entry the patient's gene is linked to, ahead of an Orphanet entry of the same gene (a clinical
group such as "Autosomal recessive primary microcephaly" below "Primary microcephaly 7")."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part


class SpecificEntry(EvidenceKind):
    name = "specific"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        if case.gene is None or disease not in case.graph.gene_sources:
            return None
        if not (case.graph.diseases[disease].get("disease_id") or "").startswith("OMIM:"):
            return None
        return Part(1.0, "an OMIM entry of the gene")
