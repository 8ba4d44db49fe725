"""The published patients most like this one, voting: each of the `LOOKALIKES` most similar patients
(FPKG's and phenopacket-store's, a held-out paper's left out) votes for its disease with its similarity to
the power `POWER`, so the closest count most. The disease's share of the votes: a nearest-neighbour
reading of the literature, beside the annotation match."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part

LOOKALIKES = 50
POWER = 8


class LookAlikes(EvidenceKind):
    name = "lookalikes"

    def candidates(self, case: CaseEvidence) -> set[int]:
        return set(self._votes(case))

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        found = self._votes(case).get(disease)
        if found is None:
            return None
        share, count = found
        return Part(share, f"{count} of the {LOOKALIKES} published patients most like this one have it "
                           f"({share:.0%} of their votes)")

    @staticmethod
    def _votes(case: CaseEvidence) -> dict[int, tuple[float, int]]:
        if "votes" not in case.extra:
            case.extra["votes"] = case.patients.votes(LOOKALIKES, POWER) if case.patients is not None \
                and case.present else {}
        return case.extra["votes"]
