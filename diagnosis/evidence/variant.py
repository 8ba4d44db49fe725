"""The patient's own variant is published as causing the disease: the same text or, within the gene, the
same HGVS change however written (`fpkg/variant_keys.py`)."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part


class PublishedVariant(EvidenceKind):
    name = "variant"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        pmids = case.graph.variant_diseases.get(disease)
        if not pmids:
            return None
        return Part(1.0, f"the patient's variant is published as causing {case.graph.name(disease)} "
                         f"(PMID {', '.join(map(str, sorted(pmids)))})")
