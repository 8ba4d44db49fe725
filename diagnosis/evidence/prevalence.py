"""How often the disease is published: its published patients (FPKG's and phenopacket-store's, a held-out
paper's left out), as log(1 + n). A proxy for how common it is, which curation shapes too (a store cohort
is curated for a gene or a disease); it lets the common member outrank a rare one when the findings fit
both equally."""

from __future__ import annotations

import math

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part


class Prevalence(EvidenceKind):
    name = "published"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        count = case.knowledge.published.count(disease, case.hold_out.pmids)
        if not count:
            return None
        return Part(math.log1p(count), f"{count} published patient{'s' if count > 1 else ''} (FPKG, "
                                       "phenopacket-store): how often it is published")
