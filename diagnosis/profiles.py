"""Every disease's facial phenotype annotations, read from the graph once at start.

The differential needs the whole profile of each candidate disease; asking the graph for
~60 profiles per case was the slowest part of a diagnosis (65k `Exhibit` rows in FPKG + HPO,
a few MB in memory). The graph stays the source: this is a read-only copy taken at start.
"""

from __future__ import annotations

from collections import defaultdict
from typing import NamedTuple

from graphstore.store import GraphStore

LOAD_TIMEOUT_MS = 120_000
# An annotation seen in 0 of n reported patients (HPO frequency 0) is no feature of the disease.
ANNOTATIONS = ("MATCH (d:Disease)-[r:Exhibit]->(p:FacePhenotype) WHERE coalesce(r.frequency, 1.0) > 0 "
               "RETURN d.nid AS disease, p.nid AS phenotype, r.pmid AS pmid, r.source AS source")
PHENOTYPE_NAMES = "MATCH (p:FacePhenotype) RETURN p.nid AS id, p.phenotypeName AS name"


class Annotation(NamedTuple):
    phenotype: int
    pmid: int | None
    source: str


class DiseaseProfiles:
    def __init__(self, rows: list[dict], phenotype_names: dict[int, str]):
        self.by_disease: dict[int, list[Annotation]] = defaultdict(list)
        self.by_phenotype: dict[int, set[int]] = defaultdict(set)
        self.by_pmid: dict[int, set[int]] = defaultdict(set)
        for row in rows:
            self.by_disease[row["disease"]].append(Annotation(row["phenotype"], row["pmid"], row["source"] or ""))
            self.by_phenotype[row["phenotype"]].add(row["disease"])
            if row["pmid"] is not None and "HPO" not in (row["source"] or ""):
                self.by_pmid[row["pmid"]].add(row["disease"])
        self.phenotype_names = phenotype_names

    @classmethod
    def from_store(cls, store: GraphStore) -> DiseaseProfiles:
        names = {row["id"]: row["name"] for row in store.query(PHENOTYPE_NAMES, timeout_ms=LOAD_TIMEOUT_MS)}
        return cls(store.query(ANNOTATIONS, timeout_ms=LOAD_TIMEOUT_MS), names)

    def __len__(self) -> int:
        return sum(len(annotations) for annotations in self.by_disease.values())

    def diseases_citing(self, pmids: frozenset[int]) -> set[int]:
        """The diseases some of whose annotations come from these papers alone."""
        return {disease for pmid in pmids for disease in self.by_pmid.get(pmid, ())}

    def annotations(self, disease: int, exclude_pmids: frozenset[int] = frozenset()) -> list[Annotation]:
        """The disease's annotations, less those only a held-out paper made (an annotation HPO also
        makes, source FPKG+HPO, stays: HPO's curators made it apart from that paper)."""
        return [a for a in self.by_disease.get(disease, ()) if a.pmid not in exclude_pmids or "HPO" in a.source]
