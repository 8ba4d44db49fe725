"""Every disease's phenotype annotations, read once at start: the facial ones from the graph (FPKG's
published patients, HPO, curated facts), the whole of HPO's from its release files
(`kg_dump.hpo_profiles`: frequencies, and NOT annotations).

The differential needs the whole profile of each candidate disease; asking the graph for
~60 profiles per case was the slowest part of a diagnosis. The graph stays the source of what it
shows: this is a read-only copy taken at start.

A held-out paper (`retrieval.hold_out.HoldOut`) leaves out the facial annotations FPKG took from it and,
under the whole-paper rule, HPO's lines whose sources are that paper alone (`diagnosis.paper_lines`): every
reader asks for a disease's annotations with the case's hold-out.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import NamedTuple

import numpy as np

from diagnosis.paper_lines import PaperLines
from graphstore.schema import EXHIBIT, HPO
from graphstore.store import GraphStore
from kg_dump.hpo_profiles import HpoProfiles
from retrieval.hold_out import NO_LINES, NOTHING_HELD_OUT, HeldOutLines, HoldOut

LOAD_TIMEOUT_MS = 120_000
# An annotation seen in 0 of n reported patients (HPO frequency 0) is no feature of the disease.
ANNOTATIONS = ("MATCH (d:Disease)-[r:Exhibit]->(p:FacePhenotype) WHERE coalesce(r.frequency, 1.0) > 0 "
               "RETURN d.nid AS disease, p.nid AS phenotype, r.pmid AS pmid, r.source AS source")
PHENOTYPE_NAMES = "MATCH (p:FacePhenotype) RETURN p.nid AS id, p.phenotypeName AS name, p.hpo_id AS hpo_id"
DISEASE_IDS = "MATCH (d:Disease) RETURN d.nid AS id, d.disease_id AS did, d.other_ids AS others"
HPO_GENE_LINKS = ("MATCH (g:Genotype)-[r:Cause]->(d:Disease) WHERE r.source = $source "
                  "RETURN g.nid AS gene, d.nid AS disease")


class Annotation(NamedTuple):
    phenotype: int
    pmid: int | None
    source: str


class DiseaseProfiles:
    def __init__(self, rows: list[dict], phenotype_names: dict[int, str],
                 hpo_terms: dict[int, dict[int, float]] | None = None, hpo_excluded: dict[int, set[int]] | None = None,
                 inheritance: dict[int, set[str]] | None = None, onset: dict[int, set[str]] | None = None,
                 paper_lines: PaperLines | None = None):
        """`rows`: the graph's facial annotations; `hpo_terms`: disease node -> {HPO term number: frequency
        (NaN: not given)}, its whole annotation; `hpo_excluded`: disease node -> the terms HPO says it lacks;
        `inheritance`: disease node -> HPO's modes of inheritance (names); `onset`: -> HPO's onset terms;
        `paper_lines`: HPO's lines with their sources (none: a paper held out leaves HPO's lines alone)."""
        self.by_disease: dict[int, list[Annotation]] = defaultdict(list)
        self.by_phenotype: dict[int, set[int]] = defaultdict(set)
        self.by_pmid: dict[int, set[int]] = defaultdict(set)
        for row in rows:
            self.by_disease[row["disease"]].append(Annotation(row["phenotype"], row["pmid"], row["source"] or ""))
            self.by_phenotype[row["phenotype"]].add(row["disease"])
            if row["pmid"] is not None and "HPO" not in (row["source"] or ""):
                self.by_pmid[row["pmid"]].add(row["disease"])
        self.phenotype_names = phenotype_names
        self.hpo_terms = hpo_terms or {}
        self.hpo_excluded = hpo_excluded or {}
        self.inheritance = inheritance or {}
        self.onset = onset or {}
        self.paper_lines = paper_lines

    @classmethod
    def from_store(cls, store: GraphStore, hpo: HpoProfiles | None = None) -> DiseaseProfiles:
        phenotypes = store.query(PHENOTYPE_NAMES, timeout_ms=LOAD_TIMEOUT_MS)
        names = {row["id"]: row["name"] for row in phenotypes}
        rows = store.query(ANNOTATIONS, timeout_ms=LOAD_TIMEOUT_MS)
        if hpo is None:
            return cls(rows, names)
        node_of = {}  # an OMIM or ORPHA id -> the graph's node of that disease
        for row in store.query(DISEASE_IDS, timeout_ms=LOAD_TIMEOUT_MS):
            for disease_id in [row["did"], *str(row["others"] or "").split(";")]:
                if disease_id:
                    node_of.setdefault(disease_id, row["id"])
        nodes = np.array([node_of.get(d, -1) for d in hpo.diseases], dtype=np.int64)
        terms: dict[int, dict[int, float]] = defaultdict(dict)
        for node, term, frequency in zip(nodes[hpo.annotated_disease].tolist(), hpo.annotated_term.tolist(),
                                         hpo.frequency.tolist(), strict=True):
            if node >= 0 and frequency != 0:  # seen in 0 of n patients: no feature of the disease
                known = terms[node].get(term)
                terms[node][term] = frequency if known is None or np.isnan(known) else max(known, frequency)
        excluded: dict[int, set[int]] = defaultdict(set)
        for node, term in zip(nodes[hpo.excluded_disease].tolist(), hpo.excluded_term.tolist(), strict=True):
            if node >= 0:
                excluded[node].add(term)
        inheritance: dict[int, set[str]] = defaultdict(set)
        onset: dict[int, set[str]] = defaultdict(set)
        for by_id, into in ((hpo.inheritance, inheritance), (hpo.onset, onset)):
            for disease_id, values in by_id.items():
                if disease_id in node_of:
                    into[node_of[disease_id]].update(values)
        ids_of: dict[int, list[str]] = defaultdict(list)
        for disease_id, node in node_of.items():
            ids_of[node].append(disease_id)
        phenotype_of = {hpo.index[row["hpo_id"]]: row["id"] for row in phenotypes if row["hpo_id"] in hpo.index}
        links = [(row["gene"], row["disease"]) for row in store.query(HPO_GENE_LINKS, {"source": HPO},
                                                                      timeout_ms=LOAD_TIMEOUT_MS)]
        terms = dict(terms)
        return cls(rows, names, terms, dict(excluded), dict(inheritance), dict(onset),
                   PaperLines(hpo, dict(ids_of), terms, phenotype_of, links))

    def __len__(self) -> int:
        return sum(len(annotations) for annotations in self.by_disease.values())

    def held_out(self, pmids: frozenset[int]) -> HeldOutLines:
        """What HPO's lines citing these papers alone leave of the diseases they annotate."""
        return self.paper_lines.held_out(pmids) if self.paper_lines is not None and pmids else NO_LINES

    def diseases_citing(self, hold_out: HoldOut) -> set[int]:
        """The diseases some of whose annotations come from the held-out papers alone (FPKG's; HPO's lines
        under the whole-paper rule)."""
        return {disease for pmid in hold_out.pmids for disease in self.by_pmid.get(pmid, ())} | set(
            hold_out.held_lines.terms)

    def annotations(self, disease: int, hold_out: HoldOut = NOTHING_HELD_OUT) -> list[Annotation]:
        """The disease's facial annotations in the graph, less those only a held-out paper made: FPKG's from
        that paper (one HPO also makes, source FPKG+HPO, stays while a line of HPO's is left for it)."""
        if not hold_out:
            return list(self.by_disease.get(disease, ()))
        lines = hold_out.held_lines
        return [a for a in self.by_disease.get(disease, ())
                if (a.source != HPO and a.pmid not in hold_out.pmids)  # FPKG's (or a curator's) own paper
                or ("HPO" in a.source and not lines.removes(EXHIBIT, disease, a.phenotype))]

    def terms(self, disease: int, hold_out: HoldOut = NOTHING_HELD_OUT) -> Mapping[int, float]:
        """HPO's whole annotation of the disease (term number -> frequency, NaN: not given), less the lines a
        held-out paper alone is the source of."""
        lines = hold_out.held_lines
        return lines.terms[disease] if disease in lines.terms else self.hpo_terms.get(disease, {})

    def excluded(self, disease: int, hold_out: HoldOut = NOTHING_HELD_OUT) -> set[int] | frozenset[int]:
        lines = hold_out.held_lines
        return lines.excluded[disease] if disease in lines.terms else self.hpo_excluded.get(disease, set())

    def modes(self, disease: int, hold_out: HoldOut = NOTHING_HELD_OUT) -> set[str] | frozenset[str]:
        """HPO's modes of inheritance of the disease (names)."""
        lines = hold_out.held_lines
        return lines.inheritance[disease] if disease in lines.terms else self.inheritance.get(disease, set())

    def onsets(self, disease: int, hold_out: HoldOut = NOTHING_HELD_OUT) -> set[str] | frozenset[str]:
        """HPO's onset terms of the disease (HPO ids)."""
        lines = hold_out.held_lines
        return lines.onset[disease] if disease in lines.terms else self.onset.get(disease, set())
