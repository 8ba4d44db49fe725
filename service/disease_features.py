"""Ask's answers about a disease's features, read as a clinician reads them (`kg_dump.cardinal`): its findings
by HPO frequency band, the cardinal ones named first, facial findings apart from the others, the long tail
last; and two diseases compared: their genes and modes of inheritance, the findings they share, and the
findings that tell them apart, each with its frequencies.

A finding "tells them apart" when it is frequent in one (HPO's frequent or more, 30 % and up, or a cardinal
one) and the other is annotated as rarely or never showing it, or does not annotate it, nor a term below
it, nor its parent term: absent from one annotation list is not absent from that disease, so such a finding
is said to be "annotated for X only", never "only in X". A group (Noonan syndrome) is compared as a group:
its own annotation, its members' genes, its members named, and no finding its members are annotated with
said to tell it apart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphstore.store import GraphStore
from kg_dump.cardinal import (
    FREQUENT,
    RARE,
    DiseaseAnnotations,
    Finding,
    ancestors,
    frequency_band,
    frequency_text,
    known,
)
from kg_dump.hpo_profiles import HpoProfiles

SHOWN = 12  # findings named per band or section; the rest counted
TELLING_SHOWN = 10  # findings that tell the diseases apart, per side and section
GENES = ("MATCH (g:Genotype)-[:Cause]->(d:Disease) WHERE d.nid = $id RETURN DISTINCT g.geneName AS gene "
         "ORDER BY gene")
MEMBER_GENES = ("MATCH (m:Disease)-[:member_of]->(d:Disease) WHERE d.nid = $id "
                "MATCH (g:Genotype)-[:Cause]->(m) RETURN DISTINCT g.geneName AS gene ORDER BY gene")
MEMBERS = ("MATCH (m:Disease)-[:member_of]->(d:Disease) WHERE d.nid = $id RETURN m.nid AS node, m.dname AS name "
           "ORDER BY name")
IDS = "MATCH (d:Disease) WHERE d.nid = $id RETURN d.disease_id AS did, d.other_ids AS others"


@dataclass(frozen=True)
class Disease:
    node: int
    name: str
    findings: list[Finding]
    genes: list[str]
    inheritance: list[str]
    members: list[str]  # a group's members, by name
    member_terms: frozenset[int] = frozenset()  # what its members are annotated with (a group's)


def read_disease(store: GraphStore, annotations: DiseaseAnnotations, node: int, name: str) -> Disease:
    row = next(iter(store.query(IDS, {"id": node}, timeout_ms=3000)), {})
    ids = [x for x in [row.get("did"), *str(row.get("others") or "").split(";")] if x]
    genes = [r["gene"] for r in store.query(GENES, {"id": node}, timeout_ms=3000) if r["gene"]]
    rows = store.query(MEMBERS, {"id": node}, timeout_ms=3000)
    members = [r["name"] for r in rows if r["name"]]
    if members:  # a group: its members' genes too
        genes += [r["gene"] for r in store.query(MEMBER_GENES, {"id": node}, timeout_ms=3000) if r["gene"]]
    member_terms = frozenset(term for r in rows for term, frequency in annotations.terms.get(r["node"], {}).items()
                             if known(frequency) != 0)
    return Disease(node, name, annotations.findings(node), list(dict.fromkeys(genes)),
                   annotations.inheritance(ids), members, member_terms)


def feature_list(hpo: HpoProfiles, disease: Disease, facial_asked: bool) -> str | None:
    """The disease's findings in reading order: cardinal first, then by band; facial and other apart (the
    facial ones first when the face was asked about). None when HPO annotates none."""
    if not disease.findings:
        return None
    facial = [f for f in disease.findings if f.facial]
    other = [f for f in disease.findings if not f.facial]
    cardinal = [f for f in (facial if facial_asked else disease.findings) if f.cardinal]
    lines = [f"{disease.name}: {len(facial)} facial findings and {len(other)} others (HPO), the most frequent "
             "first."]
    if cardinal:
        lines.append("Cardinal (very frequent, and rare in other diseases): "
                     + ", ".join(f"{f.name} ({frequency_text(f.frequency)})" for f in cardinal[:SHOWN]) + ".")
    if facial:
        lines.append(f"Facial: {_banded(facial)}.")
    senses = [f for f in other if hpo.facial[f.term]]  # the eyes' and ears' function: not seen on the face
    if senses:
        lines.append(f"Sight and hearing: {_banded(senses)}.")
        other = [f for f in other if not hpo.facial[f.term]]
    if other and facial_asked:  # the face was asked about: the rest in a line, its frequent ones named
        frequent = [f.name for f in other if known(f.frequency) is not None and known(f.frequency) >= FREQUENT]
        lines.append(f"Beside the face, {len(other)} findings" + (f", frequent: {', '.join(frequent)}" if frequent
                                                                   else "") + ".")
    elif other:
        lines.append(f"Beside the face: {_banded(other)}.")
    return "\n".join(lines)


def compare(hpo: HpoProfiles, first: Disease, second: Disease) -> str:
    """Two diseases side by side (see the module's docstring); `hpo`: the ontology their findings are in."""
    lines = [f"{first.name} and {second.name} compared (HPO's annotations, with their frequencies)."]
    for disease in (first, second):
        said = [f"genes {', '.join(disease.genes[:SHOWN])}" + (f" and {len(disease.genes) - SHOWN} more"
                                                               if len(disease.genes) > SHOWN else "")
                if disease.genes else "no gene in the graph"]
        if disease.inheritance:
            said.append(", ".join(mode.lower() for mode in disease.inheritance))
        if disease.members:
            said.append(f"a group of {len(disease.members)}: {', '.join(disease.members[:6])}"
                        + (" and more" if len(disease.members) > 6 else ""))
        lines.append(f"{disease.name}: {'; '.join(said)}.")
    for title, facial in (("Facial findings", True), ("Findings beside the face", False)):
        mine = [f for f in first.findings if f.facial == facial]
        theirs = [f for f in second.findings if f.facial == facial]
        if not mine and not theirs:
            continue
        shared = _shared(mine, theirs)
        lines.append(f"{title}, shared: " + (", ".join(f"{a.name} ({frequency_text(a.frequency)} / "
                                                       f"{frequency_text(b.frequency)})" for a, b in shared[:SHOWN])
                                              + (f" and {len(shared) - SHOWN} more" if len(shared) > SHOWN else "")
                                              if shared else "none") + ".")
        telling = [*_telling(hpo, first, second, mine, theirs), *_telling(hpo, second, first, theirs, mine)]
        if telling:
            lines.append(f"{title} that tell them apart: " + "; ".join(telling) + ".")
    return "\n".join(lines)


def _banded(findings: list[Finding]) -> str:
    """'very frequent — A, B; frequent — C; frequency not given — D, …': every finding, the long tail last."""
    bands: dict[str, list[Finding]] = {}
    for finding in findings:  # already in reading order
        bands.setdefault(frequency_band(finding.frequency), []).append(finding)
    return "; ".join(f"{band} — {', '.join(f.name for f in found)}" for band, found in bands.items())


def _shared(mine: list[Finding], theirs: list[Finding]) -> list[tuple[Finding, Finding]]:
    by_term = {f.term: f for f in theirs}
    return [(f, by_term[f.term]) for f in mine if f.term in by_term and _shown(f) and _shown(by_term[f.term])]


def _shown(finding: Finding) -> bool:
    return known(finding.frequency) is None or known(finding.frequency) >= RARE


def _telling(hpo: HpoProfiles, one: Disease, other: Disease, mine: list[Finding], theirs: list[Finding]) -> list[str]:
    """Findings frequent in `one` that `other` annotates as rare or absent, or not at all (nor a term below
    or just above): 'Curly hair (Costello syndrome 80-99 %; annotated for Costello syndrome only)'."""
    covered = {f.term: f for f in theirs}
    around = _around(hpo, other)
    said = []
    for finding in mine:
        frequency = known(finding.frequency)
        if not (finding.cardinal or (frequency is not None and frequency >= FREQUENT)):
            continue
        counterpart = covered.get(finding.term)
        if counterpart is not None:
            rare = known(counterpart.frequency)
            if rare is None or rare >= RARE:
                continue  # both show it
            said.append(f"{finding.name} ({one.name} {frequency_text(frequency)}; {other.name} "
                        f"{frequency_text(rare)})")
        elif finding.term not in around and not set(hpo.parents[finding.term]) & {
                *(f.term for f in other.findings), *other.member_terms}:
            said.append(f"{finding.name} ({one.name} {frequency_text(frequency)}; annotated for {one.name} only)")
        if len(said) == TELLING_SHOWN:
            break
    return said


def _around(hpo: HpoProfiles, disease: Disease) -> set[int]:
    """The terms the disease shows, themselves or through a term below them (its findings, a group's
    members' findings, and their ancestors)."""
    shown = {f.term for f in disease.findings if _shown(f)} | set(disease.member_terms)
    return shown.union(*(ancestors(hpo, term) for term in shown))


FACE_ASKED = re.compile(r"\b(fac(e|es|ial)|dysmorph\w*|craniofacial)\b", re.IGNORECASE)


def answer_features(retrieved, question: str, store: GraphStore, annotations: DiseaseAnnotations) -> None:
    """A disease's features, or two diseases compared, written from HPO's whole annotation in reading order
    (the retrieved facts stay the evidence); nothing changes when HPO annotates none of them."""
    diseases = [link for link in retrieved.links if link.type == "DISEASE" and link.node_id is not None]
    diseases = list({link.node_id: link for link in diseases}.values())
    if retrieved.intent == "compare_diseases" and len(diseases) >= 2:
        first, second = (read_disease(store, annotations, link.node_id, link.name) for link in diseases[:2])
        if first.findings and second.findings:
            retrieved.lead, retrieved.complete = compare(annotations.hpo, first, second), True
    elif retrieved.intent == "phenotypes_of_disease" and len(diseases) == 1 and not retrieved.complete:
        disease = read_disease(store, annotations, diseases[0].node_id, diseases[0].name)
        text = feature_list(annotations.hpo, disease, facial_asked=bool(FACE_ASKED.search(question)))
        if text:
            listed = {f.name.casefold() for f in disease.findings}
            more = list(dict.fromkeys(t.tail for t in retrieved.triples if t.relation == "Exhibit"
                                      and t.head_id == disease.node and t.tail.casefold() not in listed))
            if more:  # FPKG's own facial phenotypes, and those of its published patients
                text += "\nAlso in the graph (FPKG): " + ", ".join(more) + "."
            retrieved.lead, retrieved.complete = text, True
