"""Diseases with two or more facial findings at once: "both … and", "with" and "and" mean all of them; "or"
means either ("cleft lip or palate": Cleft lip or Cleft palate, one slot of alternatives).

The question's phenotypes fall into slots, in the order it names them: two names joined by "or" (or "/") are
alternatives of one slot, any other joining word ("with", "and", ",", "as well as") starts a new slot; a
question whose names are only ever joined by "or" asks for a union (the caller lists the diseases with any).
An elided name is read whole: "cleft lip or palate" asks for Cleft palate too.

A disease has a slot when HPO (or FPKG) annotates it with one of the slot's phenotypes or a term below one
("Cleft upper lip" answers "cleft lip"), seen in some patients (frequency above 0). The diseases with every
slot are ordered by how often they show them (the product of each slot's best frequency, 0.5 when not given)
over log2(2 + their number of findings): the most frequent and specific first. An OMIM entry named after
one finding alone ("Split lower lip", "Uvula, bifid") is said apart, not listed as a syndrome.
"""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field

from fpkg.markdown import table
from fpkg.names import normalise
from graphstore.store import GraphStore
from kg_dump.cardinal import frequency_text
from retrieval.cypher.templates import TEMPLATE_TIMEOUT_MS
from retrieval.intent import DISEASE_WORDS
from retrieval.linking import EntityLinker
from retrieval.result import CypherRun, Link, Triple

TABLE_ROWS = 30  # diseases in the table; the rest named in a line below it
NOT_GIVEN = 0.5
DESCENDANTS = "MATCH (q:FacePhenotype)-[:is_a*0..12]->(p:FacePhenotype) WHERE p.nid IN $ids RETURN DISTINCT q.nid AS id"
ANNOTATED = ("MATCH (d:Disease)-[r:Exhibit]->(q:FacePhenotype) WHERE q.nid IN $ids AND coalesce(r.frequency, 1.0) > 0 "
             "RETURN d.nid AS disease, d.dname AS name, q.nid AS phenotype, q.phenotypeName AS phenotype_name, "
             "r.frequency AS frequency, r.source AS source, r.pmid AS pmid")
FINDINGS = "MATCH (d:Disease)-[:Exhibit]->(q:FacePhenotype) WHERE d.nid IN $ids RETURN d.nid AS disease, count(q) AS n"
GENES = ("MATCH (g:Genotype)-[:Cause]->(d:Disease) WHERE d.nid IN $ids "
         "RETURN d.nid AS disease, collect(DISTINCT g.geneName) AS genes")
GENES_SHOWN = 4
OR_JOIN = re.compile(r"^[\s,]*(?:and\s*/\s*or|or|/)[\s,]*$", re.IGNORECASE)
AND_WORDS = re.compile(r"\b(and|with|both|plus|as well as|together|along|alongside|in addition|also)\b|&",
                       re.IGNORECASE)
ELIDED = re.compile(r"^\s*(?:or|and/or|/)\s*([a-z][\w-]*)", re.IGNORECASE)


@dataclass
class Slot:
    links: list[Link] = field(default_factory=list)

    @property
    def name(self) -> str:
        return " or ".join(link.name for link in self.links)


@dataclass
class Found:
    disease: int
    name: str
    best: list[tuple[float | None, str]]  # per slot: the best frequency and the phenotype annotated
    triples: list[Triple]
    findings: int = 0
    genes: list[str] = field(default_factory=list)

    @property
    def score(self) -> float:
        often = math.prod(NOT_GIVEN if f is None else f for f, _ in self.best)
        return often / math.log2(2 + self.findings)


def phenotype_slots(question: str, links: list[Link], linker: EntityLinker | None) -> tuple[list[Slot], bool]:
    """The asked phenotypes in slots (see the module's docstring), and whether they are alternatives only."""
    lowered = question.lower()
    placed = []
    for link in links:
        if link.label == "FacePhenotype" and link.node_id is not None and link.mention:
            at = lowered.find(link.mention.lower())
            if at >= 0 and all(link.node_id != other.node_id for _, _, other in placed):
                placed.append((at, at + len(link.mention), link))
    placed.sort(key=lambda item: item[0])
    joins = [question[end:start] for (_, end, _), (start, _, _) in zip(placed, placed[1:], strict=False)]
    union = bool(joins) and all(OR_JOIN.match(j) for j in joins) and not AND_WORDS.search(" ".join(joins))
    slots: list[Slot] = []
    for i, (_, end, link) in enumerate(placed):
        if not slots or union or not OR_JOIN.match(joins[i - 1]):
            slots.append(Slot())
        slots[-1].links.append(link)
        elided = _elided(question[end:], link, linker)
        if elided is not None and all(elided.node_id != other.node_id for _, _, other in placed):
            slots[-1].links.append(elided)
    return slots, union


def _elided(after: str, link: Link, linker: EntityLinker | None) -> Link | None:
    """'cleft lip or palate': the phenotype the mention's words make with the word after "or"."""
    found = ELIDED.match(after)
    words = link.mention.split()
    if linker is None or not found or len(words) < 2:
        return None
    whole = linker.link(" ".join([*words[:-1], found.group(1)]), "FACIAL_PHENOTYPE")
    return whole if whole.node_id is not None and whole.method in ("exact", "synonym") else None


def diseases_with_all(store: GraphStore, slots: list[Slot]) -> tuple[list[Found], list[CypherRun]]:
    """The diseases with every slot (a term below counts), the most frequent and specific first."""
    runs: list[CypherRun] = []
    per_slot: list[dict[int, list[dict]]] = []
    for slot in slots:
        ids = [row["id"] for row in _read(store, DESCENDANTS, {"ids": [lk.node_id for lk in slot.links]}, runs)]
        found: dict[int, list[dict]] = {}
        for row in _read(store, ANNOTATED, {"ids": ids}, runs):
            found.setdefault(row["disease"], []).append(row)
        per_slot.append(found)
    common = set(per_slot[0]).intersection(*per_slot[1:]) if per_slot else set()
    results = []
    for disease in common:
        rows = [found[disease] for found in per_slot]
        best = [max(((r["frequency"], r["phenotype_name"]) for r in slot_rows), key=_by_frequency)
                for slot_rows in rows]
        triples = [Triple(r["name"], "Exhibit", r["phenotype_name"], disease, r["phenotype"], "Disease",
                          "FacePhenotype", r.get("source") or "", (r["pmid"],) if isinstance(r.get("pmid"), int)
                          else ()) for slot_rows in rows for r in slot_rows]
        results.append(Found(disease, rows[0][0]["name"] or "", best, triples))
    if results:
        counts = {row["disease"]: int(row["n"]) for row in _read(store, FINDINGS, {"ids": sorted(common)}, runs)}
        genes = {row["disease"]: sorted(g for g in row["genes"] if g)
                 for row in _read(store, GENES, {"ids": sorted(common)}, runs)}
        for found in results:
            found.findings, found.genes = counts.get(found.disease, 0), genes.get(found.disease, [])
    return sorted(results, key=lambda f: (-f.score, f.name)), runs


def _by_frequency(item: tuple) -> float:
    return NOT_GIVEN if item[0] is None else float(item[0])


def _read(store: GraphStore, query: str, params: dict, runs: list[CypherRun]) -> list[dict]:
    rows = store.query(query, params, timeout_ms=TEMPLATE_TIMEOUT_MS)
    runs.append(CypherRun(query, {"ids": params["ids"][:20]}, origin="template:intersection", rows=len(rows)))
    return rows


def finding_entry(name: str, linker: EntityLinker | None) -> bool:
    """An OMIM entry named after one finding alone ("Uvula, bifid"): its name, its words in any order (OMIM
    inverts them), is a phenotype's name or synonym; and no disease word ("Crouzon syndrome", HPO's synonym of
    Craniofacial dysostosis, is a syndrome)."""
    if linker is None or not name or DISEASE_WORDS.search(name):
        return False
    return _sorted_words(normalise(name)) in _phenotype_word_sets(linker)


@functools.lru_cache(maxsize=4)  # once per linker: a pipeline has one
def _phenotype_word_sets(linker: EntityLinker) -> frozenset[tuple[str, ...]]:
    return frozenset(_sorted_words(key) for key in linker.vocabulary("FacePhenotype"))


def _sorted_words(key: str) -> tuple[str, ...]:
    return tuple(sorted(re.findall(r"\w+", key)))


def intersection_answer(slots: list[Slot], found: list[Found], linker: EntityLinker | None) -> str:
    """The answer: how many diseases have every slot, then a table of them with each slot's frequency."""
    named = " and ".join(slot.name for slot in slots)
    every = "both" if len(slots) == 2 else "all of"
    if not found:
        return (f"Not recorded: no disease in the graph is annotated with {every} {named} (nor with a more specific "
                "finding).")
    apart = [f for f in found if finding_entry(f.name, linker)]
    diseases = [f for f in found if f not in apart]
    lines = [f"{len(diseases)} disease{'s have' if len(diseases) != 1 else ' has'} {every} {named} in the graph's "
             "annotations (a more specific finding counts; the most frequent and specific first):"]
    if diseases:
        rows = [[i, f.name, _genes(f.genes), *(_cell(best, slot) for best, slot in zip(f.best, slots, strict=True))]
                for i, f in enumerate(diseases[:TABLE_ROWS], start=1)]
        lines += ["", table(["#", "disease", "genes", *(slot.name for slot in slots)], rows)]
        if len(diseases) > TABLE_ROWS:
            lines += ["", f"And {len(diseases) - TABLE_ROWS} more: " + ", ".join(f.name for f in diseases[TABLE_ROWS:])
                      + "."]
    if apart:
        lines += ["", "Entries named after a finding itself (not syndromes): " + ", ".join(f.name for f in apart) + "."]
    return "\n".join(lines)


def _genes(genes: list[str]) -> str:
    more = len(genes) - GENES_SHOWN
    return ", ".join(genes[:GENES_SHOWN]) + (f" and {more} more" if more > 0 else "") if genes else "—"


def _cell(best: tuple[float | None, str], slot: Slot) -> str:
    frequency, phenotype = best
    said = frequency_text(frequency)
    return said if phenotype in (link.name for link in slot.links) else f"{phenotype}: {said}"
