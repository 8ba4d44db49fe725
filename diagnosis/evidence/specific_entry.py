"""An OMIM entry the patient's gene is linked to, ahead of an Orphanet entry of the same gene (a clinical
group such as "Autosomal recessive primary microcephaly" below "Primary microcephaly 7"), counting as much as the
link does (`gene_link.link_share`)."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part
from diagnosis.evidence.gene_link import link_share


class SpecificEntry(EvidenceKind):
    name = "specific"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        if case.gene is None or disease not in case.graph.gene_sources:
            return None
        if not (case.graph.diseases[disease].get("disease_id") or "").startswith("OMIM:"):
            return None
        share, why = link_share(disease, case)  # a gene's cancer or lupus: no more an entry of it than its link
        return Part(share, "an OMIM entry of the gene" + (" (its link counts for a share)" if why else ""))
