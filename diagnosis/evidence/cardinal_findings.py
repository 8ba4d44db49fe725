"""Cardinal findings count most: the share of the disease's cardinal findings (very frequent in it, rare
elsewhere: `kg_dump.cardinal`) that the patient shows (the finding or one below it), each weighed by its
information content. A disease's hallmark findings, present, speak for it more than occasional ones."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part


class CardinalFindings(EvidenceKind):
    name = "cardinal"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        cardinal = case.knowledge.cardinal_of(disease, case.hold_out)
        if not cardinal or not case.present:
            return None
        shown = self._shown(case)
        ic = case.knowledge.ontology.ic
        total = float(sum(ic[t] for t in cardinal))
        found = [t for t in cardinal if t in shown]
        if not found or total <= 0:
            return None
        names = [case.knowledge.ontology.names[t] for t in found]
        return Part(float(sum(ic[t] for t in found)) / total,
                    f"{len(found)} of its {len(cardinal)} cardinal findings present ({', '.join(names[:4])})")

    @staticmethod
    def _shown(case: CaseEvidence) -> set[int]:
        """The patient's present findings and every term above them (once per case)."""
        if "shown" not in case.extra:
            ontology = case.knowledge.ontology
            case.extra["shown"] = {a for t in case.present for a in ontology.ancestors(t).tolist()}
        return case.extra["shown"]
