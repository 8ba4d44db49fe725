"""How broad the disease's profile is (its annotations and its published patients' findings): log(1 + the
number of findings). A disease annotated with hundreds of findings explains much of any patient by chance,
so its weight is negative: the same share explained says more of a narrow profile."""

from __future__ import annotations

import math

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part


class Breadth(EvidenceKind):
    name = "breadth"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        found = case.profile.of(disease) if case.profile is not None and case.present else None
        if found is None or not found[2]:
            return None
        return Part(math.log1p(found[2]), f"a profile of {found[2]} findings (a broad one explains much by chance)")
