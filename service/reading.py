"""How a case was read, for the answer's notices: every finding as matched (the term, its HPO id, facial or
beside the face, present or absent), what was not recognised, and whether the patient's variant counted
and why. What the reader must check is said plainly, before the answer is trusted."""

from __future__ import annotations

import re

from diagnosis.ontology import PhenotypeOntology
from diagnosis.ranker import Diagnosis
from retrieval.result import Link

FINDING_TYPES = ("FACIAL_PHENOTYPE", "FINDING")
_WRITTEN_ID = re.compile(r"\s*\(HP:\d{7}\)$")
ABSENT = "ABSENT_FINDING"


def findings_read(links: list[Link], ontology: PhenotypeOntology) -> list[str]:
    """'Findings read: hypertelorism → Hypertelorism (HP:0000316, facial); …' and, apart, the absent ones
    and those no term matched."""
    present, absent, unread = [], [], []
    for link in links:
        if link.type not in (*FINDING_TYPES, ABSENT):
            continue
        term = _term(link, ontology)
        if term is None:
            unread.append(link.mention)
            continue
        hpo_id = ontology.hpo_ids[term] or "FPKG's own term"
        where = "facial" if ontology.facial[term] else "beside the face"
        name = ontology.names[term] or link.name or link.mention
        shown = f"{name} ({hpo_id}, {where})"
        written = _WRITTEN_ID.sub("", link.mention)  # "Hypotonia (HP:0001252)" as the form gives it back
        shown = shown if written == name else f"{written} → {shown}"
        (absent if link.type == ABSENT else present).append(shown)
    lines = []
    if present:
        lines.append("Findings read, present: " + "; ".join(dict.fromkeys(present)) + ".")
    if absent:
        lines.append("Findings read, absent: " + "; ".join(dict.fromkeys(absent)) + ".")
    if unread:
        lines.append("Not recognised as a finding (left out): " + ", ".join(f"'{m}'" for m in dict.fromkeys(unread))
                     + ".")
    return lines


def variant_read(diagnosis: Diagnosis, variant: str | None, gene: str | None) -> str | None:
    """Whether the patient's variant counted, and why."""
    if not variant:
        return None
    if not gene:
        return f"The variant {variant} was not counted: without its gene it cannot be placed."
    published = "the patient's variant is published"  # diagnosis/evidence/variant.py's words
    counted = next((line for ranked in diagnosis.ranked if "variant" in ranked.parts for line in ranked.evidence
                    if line.startswith(published)), None)
    if counted:
        return f"The variant {variant} counted: it is published{counted.removeprefix(published)}."
    linked = any(link.type == "MUTATION" and link.node_id is not None for link in diagnosis.links)
    if linked:
        return (f"The variant {variant} is published in the graph, but as causing none of the diseases ranked: "
                f"only its gene {gene} counted.")
    return (f"The variant {variant} was not counted: the graph holds no publication of it (nor of the same change "
            f"written another way) in {gene}; only the gene counted.")


def _term(link: Link, ontology: PhenotypeOntology) -> int | None:
    if link.ids:
        return ontology.index_of_hpo.get(link.ids[0])
    return ontology.node_term.get(link.node_id) if link.node_id is not None else None
