"""The share of the patient's findings that the disease's annotations or its published patients hold as
themselves (or a term below them): a finding named exactly says more than a near one."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part


class ProfileExact(EvidenceKind):
    name = "exact"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        found = case.profile.of(disease) if case.profile is not None else None
        if found is None or found[1] <= 0:
            return None
        held = round(found[1] * len(case.present))
        return Part(found[1], f"{held} of {len(case.present)} findings held exactly by its annotations or its "
                              "published patients")
