"""What would tell a group's members apart when the findings do not: each member's gene (the test to
order), and the findings whose annotation frequency differs between them (frequent in one, rare or not
annotated in another), with HPO's frequencies said as they are ("annotated for X only", never "only in
X": one annotation list's silence is not the disease's)."""

from __future__ import annotations

import math

from diagnosis.profiles import DiseaseProfiles
from kg_dump.cardinal import FREQUENT, RARE, frequency_text
from retrieval.hold_out import NOTHING_HELD_OUT, HoldOut

COMPARED = 3  # the first members compared finding by finding
SHOWN_FINDINGS = 3
SHOWN_GENES = 3


def told_apart(members: list, genes_of: dict[int, tuple[str, ...]], profiles: DiseaseProfiles,
               names: list[str], hold_out: HoldOut = NOTHING_HELD_OUT) -> tuple[str, ...]:
    """Lines for a collapsed group: the genes to test, then the findings that differ most (`names`: the
    ontology's term names; a held-out paper's own annotation lines left out)."""
    lines = [line] if (line := _genes_line(members, genes_of)) else []
    lines += _differing_findings(members[:COMPARED], profiles, names, hold_out)
    return tuple(lines)


def _genes_line(members: list, genes_of: dict[int, tuple[str, ...]]) -> str | None:
    """The gene to test when the members' genes differ; said plainly when they all share one."""
    known = [(m, genes_of[m.node_id]) for m in members if m.node_id in genes_of]
    if not known:
        return None
    if len({genes for _, genes in known}) == 1:
        shared = ", ".join(known[0][1][:SHOWN_GENES])
        return f"all share {shared}: the gene does not tell them apart (the variant, onset or severity may)"
    return "the gene tells them apart: " + "; ".join(f"{', '.join(genes[:SHOWN_GENES])} ({m.name})"
                                                     for m, genes in known)


def _differing_findings(members: list, profiles: DiseaseProfiles, names: list[str], hold_out: HoldOut) -> list[str]:
    annotated = {m.node_id: profiles.terms(m.node_id, hold_out) for m in members}
    found = []
    for member in members:
        for term, frequency in annotated[member.node_id].items():
            if math.isnan(frequency) or frequency < FREQUENT or not names[term]:
                continue
            others = [other for other in members if other is not member
                      and _rare_or_silent(annotated[other.node_id].get(term))]
            if others:
                found.append((frequency, term, member, others))
    found.sort(key=lambda item: (-item[0], names[item[1]]))
    lines, seen = [], set()
    for frequency, term, member, others in found:
        if term in seen:
            continue
        seen.add(term)
        said = [f"{frequency_text(frequency)} in {member.name}"]
        for other in others:
            value = annotated[other.node_id].get(term)
            said.append(f"not annotated for {other.name}" if value is None else
                        f"{frequency_text(value)} in {other.name}")
        lines.append(f"{names[term]}: {'; '.join(said)}")
        if len(lines) == SHOWN_FINDINGS:
            break
    return lines


def _rare_or_silent(frequency: float | None) -> bool:
    return frequency is None or (not math.isnan(frequency) and frequency < RARE)
