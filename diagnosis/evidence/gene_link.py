"""The patient's gene is linked to the disease: by HPO, by a published variant (FPKG's or a published
patient's), by published patients' papers, or as a group whose member the gene causes.

HPO records no kind of link (causal, susceptibility, somatic), so the disease says it: one that is not a
syndrome a child is seen for (`diagnosis.disease_kind`) and explains little of a well-described case counts
the link for the share of the findings it explains, not in full: a gene's cancer or autoimmune disease does not
rank beside its syndromes on the strength of the link alone."""

from __future__ import annotations

from diagnosis.disease_kind import BETTER_EXPLAINED, EXPLAINS_LITTLE, MIN_FINDINGS, explained, kind_of
from diagnosis.evidence.base import CaseEvidence, EvidenceKind, Part


class GeneLink(EvidenceKind):
    name = "gene"

    def part(self, disease: int, case: CaseEvidence) -> Part | None:
        if case.gene is None or disease not in case.graph.gene_sources:
            return None
        name = case.graph.name(disease)
        line = f"{case.gene.name} is linked to {name} ({', '.join(sorted(case.graph.gene_sources[disease]))})"
        share, why = link_share(disease, case)
        return Part(share, f"{line}; {why}" if why else line)


def link_share(disease: int, case: CaseEvidence) -> tuple[float, str]:
    """How much the gene's link to the disease counts (1, or the share of the findings it explains) and, when
    less, why; the same for every part that rests on the link alone (`specific_entry`). Less only beside another
    disease of the gene that explains the case well: the link to the cancer yields to the syndrome, not to
    nothing (a patient of the gene's susceptibility entry whose annotations say little keeps its link)."""
    known = case.extra.setdefault("link_share", {})
    if disease not in known:
        unlike = _unlike(disease, case.graph.name(disease), case)
        if unlike is None or _best_explained(case) < BETTER_EXPLAINED * len(case.present):
            known[disease] = (1.0, "")
        else:
            known[disease] = (unlike[1] / len(case.present),
                              f"but it is {unlike[0]} and explains {unlike[1]} of the {len(case.present)} findings, "
                              f"where another of the gene's diseases explains more: the link counts for that share")
    return known[disease]


def _explained(disease: int, case: CaseEvidence) -> int:
    """How many of the case's present findings the disease's annotations explain (once per case)."""
    counts = case.extra.setdefault("explained", {})
    if disease not in counts:
        annotated = case.knowledge.profiles.terms(disease, case.hold_out)
        counts[disease] = explained(case.present, annotated, case.knowledge.ontology)
    return counts[disease]


def _best_explained(case: CaseEvidence) -> int:
    """The most findings any of the gene's diseases explains."""
    if "best_explained" not in case.extra:
        case.extra["best_explained"] = max((_explained(d, case) for d in case.graph.gene_sources), default=0)
    return case.extra["best_explained"]


def _unlike(disease: int, name: str, case: CaseEvidence) -> tuple[str, int] | None:
    """(what the disease is, the findings it explains) when it is no syndrome and explains little."""
    if len(case.present) < MIN_FINDINGS:
        return None
    shown = _explained(disease, case)
    if shown > EXPLAINS_LITTLE * len(case.present):
        return None
    knowledge, ontology = case.knowledge, case.knowledge.ontology
    annotated = knowledge.profiles.terms(disease, case.hold_out)
    facial_case = any(ontology.facial[t] for t in case.present)
    kind = kind_of(name, knowledge.profiles.onsets(disease, case.hold_out), annotated, ontology, facial_case)
    return (kind, shown) if kind else None
