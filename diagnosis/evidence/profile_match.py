"""What the disease's annotations and its published patients' findings explain together
(`diagnosis.profile_match`): the share of what the patient's findings say, each finding weighed by its
information content. It reaches the diseases known through their published patients alone."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part

PROFILE_CANDIDATES = 60  # the diseases explaining most of the findings, added to the candidates


class ProfileMatch(EvidenceKind):
    name = "profile"

    def candidates(self, case: CaseEvidence) -> set[int]:
        return set(case.profile.best(PROFILE_CANDIDATES)) if case.profile is not None else set()

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        found = case.profile.of(disease) if case.profile is not None else None
        if found is None or found[0] <= 0:
            return None
        return Part(found[0], f"with its published patients' findings it explains {found[0]:.0%} of what the "
                              "findings say")
