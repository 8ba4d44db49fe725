"""Every disease's phenotype annotations, read once at start: the facial ones from the graph (FPKG's
published patients, HPO, curated facts), the whole of HPO's from its release files
(`kg_dump.hpo_profiles`: frequencies, and NOT annotations).

The differential needs the whole profile of each candidate disease; asking the graph for
~60 profiles per case was the slowest part of a diagnosis. The graph stays the source of what it
shows: this is a read-only copy taken at start.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

import numpy as np

from graphstore.store import GraphStore
from kg_dump.hpo_profiles import HpoProfiles

LOAD_TIMEOUT_MS = 120_000
# An annotation seen in 0 of n reported patients (HPO frequency 0) is no feature of the disease.
ANNOTATIONS = ("MATCH (d:Disease)-[r:Exhibit]->(p:FacePhenotype) WHERE coalesce(r.frequency, 1.0) > 0 "
               "RETURN d.nid AS disease, p.nid AS phenotype, r.pmid AS pmid, r.source AS source")
PHENOTYPE_NAMES = "MATCH (p:FacePhenotype) RETURN p.nid AS id, p.phenotypeName AS name"
DISEASE_IDS = "MATCH (d:Disease) RETURN d.nid AS id, d.disease_id AS did, d.other_ids AS others"


class Annotation(NamedTuple):
    phenotype: int
    pmid: int | None
    source: str


class DiseaseProfiles:
    def __init__(self, rows: list[dict], phenotype_names: dict[int, str],
                 hpo_terms: dict[int, dict[int, float]] | None = None, hpo_excluded: dict[int, set[int]] | None = None,
                 inheritance: dict[int, set[str]] | None = None, onset: dict[int, set[str]] | None = None):
        """`rows`: the graph's facial annotations; `hpo_terms`: disease node -> {HPO term number: frequency
        (NaN: not given)}, its whole annotation; `hpo_excluded`: disease node -> the terms HPO says it lacks;
        `inheritance`: disease node -> HPO's modes of inheritance (names); `onset`: -> HPO's onset terms."""
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

    @classmethod
    def from_store(cls, store: GraphStore, hpo: HpoProfiles | None = None) -> DiseaseProfiles:
        names = {row["id"]: row["name"] for row in store.query(PHENOTYPE_NAMES, timeout_ms=LOAD_TIMEOUT_MS)}
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
        return cls(rows, names, dict(terms), dict(excluded), dict(inheritance), dict(onset))

    def __len__(self) -> int:
        return sum(len(annotations) for annotations in self.by_disease.values())

    def diseases_citing(self, pmids: frozenset[int]) -> set[int]:
        """The diseases some of whose annotations come from these papers alone."""
        return {disease for pmid in pmids for disease in self.by_pmid.get(pmid, ())}

    def annotations(self, disease: int, exclude_pmids: frozenset[int] = frozenset()) -> list[Annotation]:
        """The disease's annotations, less those only a held-out paper made (an annotation HPO also
        makes, source FPKG+HPO, stays: HPO's curators made it apart from that paper)."""
        return [a for a in self.by_disease.get(disease, ()) if a.pmid not in exclude_pmids or "HPO" in a.source]
