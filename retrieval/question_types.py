"""Questions beyond one intent, answered from the graph without an LLM: yes/no about a link
(`retrieval.yes_no`), a disease's modes of inheritance, what two or more genes, phenotypes or diseases have in
common (phenotypes: `retrieval.intersections`), a comparison of two diseases, counts, and compound questions
that ask for two things.

The kind of question decides the answer's first line, which answers it (the grounded writer starts with it;
an LLM gets it as the first line of evidence); only the triples behind it go with it. Inheritance, a
comparison and what two diseases share are written by the service from HPO's whole annotation
(`service.disease_features`); here they are recognised and their evidence read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from fpkg.display import clean
from fpkg.markdown import numbered
from graphstore.store import GraphStore
from retrieval.cypher.templates import run_template
from retrieval.gene_order import genes_in_order
from retrieval.intent import INTENTS, asked_for
from retrieval.intersections import diseases_with_all, finding_entry, intersection_answer, phenotype_slots
from retrieval.linking import EntityLinker
from retrieval.relations import asks_both, asks_count, asks_inheritance, without_names
from retrieval.result import CypherRun, Link, Triple
from retrieval.yes_no import yes_no

YES_NO_STARTS = {"is", "are", "does", "do", "did", "can", "could", "was", "were", "has", "have", "will", "would",
                 "should", "may", "might"}
COMPARE_CUES = ("compare", "comparison", "differ", "difference", "distinguish", " vs", "versus", "apart",
                "differentiat", "contrast")
# A yes/no question that does not start with its verb: "RDH5 and fundus albipunctatus: any link?"
YES_NO_CUES = ("any link", "any association", "any connection", "is that", "is it ", "is this", "known feature",
               "linked?", "associated?", "true that", "right that", "is there a link", "is there an association",
               "is there a connection", "a known cause", "ever caused")
# ... or asks it after a colon or a comma: "WNT1 and osteogenesis imperfecta: is the gene linked to it?"
YES_NO_CLAUSE = re.compile(r"[:;,\-–]\s*(" + "|".join(sorted(YES_NO_STARTS)) + r")\b")
PLURALS = {"Disease": "diseases", "FacePhenotype": "facial phenotypes", "Genotype": "genes"}
SINGULARS = {"Disease": "disease", "FacePhenotype": "facial phenotype", "Genotype": "gene"}
# Which link check a yes/no question about two kinds of node asks for.
LINK_CHECKS = {("Disease", "FacePhenotype"): "disease_has_phenotype", ("Genotype", "Disease"): "gene_causes_disease",
               ("Genotype", "FacePhenotype"): "gene_affects_phenotype"}
LISTED = 30  # names shown per list in a lead; the triples hold them all
COMPARISON = "compare_diseases"  # a comparison's intent
SHARED_BY_DISEASES = "shared_by_diseases"  # what two diseases have in common
INHERITANCE = "inheritance_of_disease"


@dataclass
class Answered:
    kind: str  # yes_no, intersection, comparison, count, compound
    lead: str
    triples: list[Triple] = field(default_factory=list)
    runs: list[CypherRun] = field(default_factory=list)
    intent: str = ""
    complete: bool = False  # the lead is the whole answer (a table); the triples are its evidence
    listing: str | None = None  # a list answer's items, numbered, below the lead


def answer_structured(question: str, links: list[Link], store: GraphStore,
                      linker: EntityLinker | None = None) -> Answered | None:
    """The answer when the question is of one of these kinds, None when it is a plain intent. `linker` reads an
    elided phenotype ("cleft lip or palate")."""
    named = _named(links)
    lowered = f" {question.lower()} "
    words = question.lower().split()
    by_label: dict[str, list[Link]] = {}
    for link in named:
        by_label.setdefault(link.label, []).append(link)
    if "Disease" in by_label and asks_inheritance(question, named):
        return _inheritance(store, by_label["Disease"][0])
    if words and (words[0].strip("¿?,.") in YES_NO_STARTS or any(cue in lowered for cue in YES_NO_CUES)
                  or YES_NO_CLAUSE.search(lowered)):
        pair = _pair(by_label)
        if pair is not None:
            text, triples, runs = yes_no(store, *pair)
            return Answered("yes_no", text, triples, runs, pair[0])
    asked = [thing for thing in asked_for(without_names(question, named)) if thing in PLURALS]  # not a name's words
    phenotypes = _phenotype_question(question, links, by_label, asked, store, linker)
    if phenotypes is not None:
        return phenotypes
    for label, group in by_label.items():
        if len(group) < 2:
            continue
        if label == "Disease" and any(cue in lowered for cue in COMPARE_CUES):
            return _compare(store, group[:2])
        if label == "Disease" and asks_both(question) and ("Genotype" not in asked or "FacePhenotype" in asked):
            return replace(_compare(store, group[:2]), intent=SHARED_BY_DISEASES)
        if asks_both(question):
            wanted = next((thing for thing in asked if (thing, label) in INTENTS), None)
            wanted = wanted or ("Disease" if label != "Disease" else "FacePhenotype")
            return _intersection(store, label, wanted, group)
    if len(by_label) == 1:
        label, group = next(iter(by_label.items()))
        intents = [(thing, INTENTS[(thing, label)]) for thing in dict.fromkeys(asked) if (thing, label) in INTENTS]
        if intents and asks_count(question):
            return _count(store, label, intents[0], group)
        if len(intents) >= 2:
            return _compound(store, intents, group)
    return None


def _phenotype_question(question: str, links: list[Link], by_label: dict[str, list[Link]], asked: list[str],
                        store: GraphStore, linker: EntityLinker | None) -> Answered | None:
    """Diseases with two or more phenotypes at once (slots: `retrieval.intersections`); genes with all of
    them; None for one phenotype, a union ("X or Y") or a question that names other kinds too."""
    if not set(by_label) <= {"FacePhenotype", "Disease"} or asks_count(question):
        return None
    findings = [link for link in links if link.label == "FacePhenotype" and link.node_id is not None]
    for link in by_label.get("Disease", []):  # an OMIM entry named after a finding ("Choanal atresia") is the finding
        reading = linker.link(link.mention, "FACIAL_PHENOTYPE") if finding_entry(link.name or "", linker) else None
        if reading is None or reading.node_id is None or reading.method not in ("exact", "synonym"):
            return None
        findings.append(reading)
    slots, union = phenotype_slots(question, findings, linker)
    wanted = next((thing for thing in asked if thing in ("Disease", "Genotype")), "Disease")
    if union or len(slots) < 2 or any(thing not in ("Disease", "Genotype", "FacePhenotype") for thing in asked):
        return None
    if wanted == "Genotype":
        return _intersection(store, "FacePhenotype", "Genotype", [slot.links[0] for slot in slots])
    found, runs = diseases_with_all(store, slots)
    triples = [t for f in found for t in f.triples]
    return Answered("intersection", intersection_answer(slots, found, linker), triples, runs,
                    "diseases_with_phenotypes", complete=bool(found))


def _inheritance(store: GraphStore, disease: Link) -> Answered:
    """The genes behind the modes (the service writes the modes from HPO's annotations, by member)."""
    triples, runs = run_template(store, "genes_of_disease", [disease.node_id])
    return Answered("inheritance", f"Modes of inheritance of {disease.name} (HPO):", triples, runs, INHERITANCE)


def _named(links: list[Link]) -> list[Link]:
    """Linked graph nodes of the three kinds, each once, in the order the question names them."""
    seen: set[int] = set()
    named = []
    for link in links:
        if link.node_id is not None and link.label in PLURALS and link.node_id not in seen:
            seen.add(link.node_id)
            named.append(link)
    return named


def _pair(by_label: dict[str, list[Link]]) -> tuple[str, Link, Link] | None:
    for (first, second), check in LINK_CHECKS.items():
        if first in by_label and second in by_label:
            return check, by_label[first][0], by_label[second][0]
    return None


def _other_side(triple: Triple, label: str, entity: int) -> int | None:
    """The node of `label` in a triple of the entity's intent (not the entity itself)."""
    if triple.tail_label == label and triple.tail_id != entity:
        return triple.tail_id
    if triple.head_label == label and triple.head_id != entity:
        return triple.head_id
    return None


def _by_entity(store: GraphStore, intent: str, wanted: str, group: list[Link]):
    """Per named entity: the wanted nodes its intent reaches, with their triples and names."""
    reached: list[dict[int, list[Triple]]] = []
    names: dict[int, str] = {}
    runs: list[CypherRun] = []
    for link in group:
        triples, ran = run_template(store, intent, [link.node_id])
        runs += ran
        found: dict[int, list[Triple]] = {}
        for triple in triples:
            other = _other_side(triple, wanted, link.node_id)
            if other is not None:
                found.setdefault(other, []).append(triple)
                names[other] = triple.tail if triple.tail_id == other else triple.head
        reached.append(found)
    return reached, names, runs


def _intersection(store: GraphStore, label: str, wanted: str, group: list[Link]) -> Answered:
    intent = INTENTS[(wanted, label)]
    if intent in WITH_ALL:  # one query for all: a common phenotype has more diseases or genes than a
        reached, names, runs = _with_all(store, WITH_ALL[intent], group)  # template returns
    else:
        reached, names, runs = _by_entity(store, intent, wanted, group)
    shared = {node for node in set(reached[0]).intersection(*reached[1:]) if names.get(node, "").strip()}
    named = ("both " if len(group) == 2 else "all of ") + _and([link.name for link in group])
    if not shared:
        return Answered("intersection", f"Not recorded: the graph links no {SINGULARS[wanted]} to {named}.",
                        [], runs, intent)
    ordered = [node for node in names if node in shared]  # as the graph ranked them (most specific first)
    order = " (most specific first)" if intent in WITH_ALL else ""
    lead = f"{len(shared)} {PLURALS[wanted] if len(shared) > 1 else SINGULARS[wanted]} linked to {named}{order}:"
    listing = numbered(clean(names[n]) for n in ordered if names[n].strip())
    triples = [t for node in ordered for found in reached for t in found[node]]
    return Answered("intersection", lead, triples, runs, intent, listing=listing)


# an intersection's intent -> the template that finds what has every one of the named phenotypes at once
WITH_ALL = {"diseases_with_phenotypes": "diseases_with_phenotypes", "genes_with_phenotype": "genes_with_phenotypes"}


def _with_all(store: GraphStore, template: str, phenotypes: list[Link]):
    """`_by_entity` for the diseases or genes with every one of the phenotypes, asked of the graph at once."""
    ids = [link.node_id for link in phenotypes]
    triples, runs = run_template(store, template, ids, min_matched=len(ids))
    reached: list[dict[int, list[Triple]]] = [{} for _ in phenotypes]
    names: dict[int, str] = {}
    for triple in triples:
        reached[ids.index(triple.tail_id)].setdefault(triple.head_id, []).append(triple)
        names[triple.head_id] = triple.head
    return reached, names, runs


def _compare(store: GraphStore, diseases: list[Link]) -> Answered:
    intent = INTENTS[("FacePhenotype", "Disease")]
    reached, names, runs = _by_entity(store, intent, "FacePhenotype", diseases)
    first, second = (set(found) for found in reached)
    a, b = diseases[0].name, diseases[1].name
    lines = [f"{a} and {b} share {len(first & second)} facial phenotypes in the graph: "
             f"{_listing(sorted(names[n] for n in first & second))}.",
             f"Annotated for {a} only ({len(first - second)}): {_listing(sorted(names[n] for n in first - second))}.",
             f"Annotated for {b} only ({len(second - first)}): {_listing(sorted(names[n] for n in second - first))}."]
    triples = [t for found in reached for ts in found.values() for t in ts]
    # (the service writes a comparison from HPO's whole annotation, with frequencies, where it has one)
    return Answered("comparison", "\n".join(lines), triples, runs, COMPARISON)


def _count(store: GraphStore, label: str, intent: tuple[str, str], group: list[Link]) -> Answered:
    wanted, name = intent
    reached, names, runs = _by_entity(store, name, wanted, group[:1])
    count = len(reached[0])
    noun = SINGULARS[wanted] if count == 1 else PLURALS[wanted]
    lead = f"{count} {noun} linked to {group[0].name} in the graph."
    if name == "genes_of_disease":  # a group's genes are its members' too
        genes, ran = genes_in_order(store, group[0].node_id)
        runs += ran
        if len(genes) > count:
            lead = (f"{len(genes)} genes are linked to {group[0].name} in the graph, its members' included "
                    f"({count} to {group[0].name} itself).")
    return Answered("count", lead, [t for ts in reached[0].values() for t in ts], runs, name)


def _compound(store: GraphStore, intents: list[tuple[str, str]], group: list[Link]) -> Answered:
    triples: list[Triple] = []
    runs: list[CypherRun] = []
    for _, name in intents:
        found, ran = run_template(store, name, [link.node_id for link in group])
        triples += found
        runs += ran
    asked = " and ".join(PLURALS[thing] for thing, _ in intents)
    return Answered("compound", f"Both parts of the question, for {_and([link.name for link in group])}: {asked}.",
                    triples, runs, "+".join(name for _, name in intents))


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _listing(names: list[str]) -> str:
    names = [name for name in names if name and name.strip()]  # a node without a name is no item of a list
    if not names:
        return "none"
    more = len(names) - LISTED
    return ", ".join(names[:LISTED]) + (f" and {more} more (all in the facts below)" if more > 0 else "")
