"""Cardinal findings the patient is not said to have: the share of the disease's cardinal findings (very frequent
in it, rare elsewhere: `kg_dump.cardinal`), weighed by information content, that no finding of the patient
names, more or less specifically; one said absent counts twice. Among one gene's allelic disorders this is
what tells them apart: a Pfeiffer child described without syndactyly is unlike Apert syndrome, a Stickler
child without short stature unlike Kniest dysplasia. A face described alone is judged only by the facial
cardinal findings."""

from __future__ import annotations

from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part
from diagnosis.evidence.cardinal_findings import CardinalFindings

MIN_FINDINGS = 3  # a case this described before what it leaves out says anything
LACKING = 2.0  # a cardinal finding said absent counts this many times one not given


class MissingCardinal(EvidenceKind):
    name = "missing"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        if len(case.present) < MIN_FINDINGS:
            return None
        ontology = case.knowledge.ontology
        cardinal = [t for t in case.knowledge.cardinal_of(disease, case.hold_out)
                    if case.whole or ontology.facial[t]]
        total = float(sum(ontology.ic[t] for t in cardinal))
        if not cardinal or total <= 0:
            return None
        shown = CardinalFindings._shown(case)  # the patient's findings and every term above them
        present, absent = set(case.present), set(case.absent)
        unstated, lacking = [], []
        for t in cardinal:
            above = set(ontology.ancestors(t).tolist())
            if absent & above:  # said absent, or something above it said absent
                lacking.append(t)
            elif t not in shown and not present & above:  # neither it nor anything more general said
                unstated.append(t)
        if not unstated and not lacking:
            return None
        value = float(sum(ontology.ic[t] for t in unstated) + LACKING * sum(ontology.ic[t] for t in lacking))
        said = [f"{len(lacking)} said absent ({self._names(lacking, ontology)})"] if lacking else []
        said += [f"{len(unstated)} not given ({self._names(unstated, ontology)})"] if unstated else []
        return Part(-value / total, f"of its {len(cardinal)} cardinal findings, {' and '.join(said)}")

    @staticmethod
    def _names(terms: list[int], ontology) -> str:
        return ", ".join(ontology.names[t] for t in terms[:4]) + (" …" if len(terms) > 4 else "")
