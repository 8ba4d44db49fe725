"""The flows an Explore Sankey shows for one gene or one disease, counted from the graph.

A gene's picture follows the FPKG paper's Fig. 5: gene → its published variants → the facial
phenotypes of the patients who carry them → the diseases those variants cause. Each link's count
is the number of patients behind it (FPKG). HPO adds what it annotates without patients: gene →
"HPO annotation" (in the variants' column: no variant is involved) → facial phenotype → disease, for
the diseases the gene causes, one per annotation. Curated facts (the Curate tab) flow the same way
through "curated fact", one per fact. A disease's picture is the reverse: disease → facial phenotypes
→ variants (or "HPO annotation", "curated fact") → genes.

Node ids travel as query parameters; nothing typed by a user enters a query's text.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from fpkg.names import short_variant
from graphstore.schema import FPKG, PHENOPACKET_STORE, SOURCES  # patients counted; HPO: annotations; curated
from graphstore.store import GraphStore
from retrieval.result import Link

HPO_STEP = "HPO annotation"  # the variants' column for HPO's flows, which name no variant
CURATED_STEP = "curated fact"  # the same for curated facts
NO_PHENOTYPE = "no facial phenotype recorded"  # a patient published without one still flows on
MAX_NODES_PER_COLUMN = 30  # a wider column is unreadable: the best-supported nodes are kept
QUERY_TIMEOUT_MS = 5000

# One row per published patient of the gene (or disease): the variant, its phenotypes, its diseases.
# FPKG's patients and phenopacket-store's are counted apart (`s.source`), each a source of its own.
_PATIENTS = {
    "Genotype": "MATCH (g:Genotype)<-[:Have]-(v:Variation)<-[:with_Var]-(s:Sample) WHERE g.nid = $id "
                "AND s.source = $source ",
    "Disease": "MATCH (x:Disease)<-[:Cause]-(v:Variation)<-[:with_Var]-(s:Sample) WHERE x.nid = $id "
               "AND s.source = $source MATCH (v)-[:Have]->(g:Genotype) ",
}
PATIENT_SOURCES = (FPKG, PHENOPACKET_STORE)
_PATIENT_ROWS = ("OPTIONAL MATCH (p:FacePhenotype)-[:with_FP]->(s) "
                 "OPTIONAL MATCH (v)-[:Cause]->(d:Disease) "
                 "RETURN s.nid AS patient, g.geneName AS gene, v.details AS variant, "
                 "collect(DISTINCT p.phenotypeName) AS phenotypes, collect(DISTINCT d.dname) AS diseases")
# HPO's annotations: a gene's diseases and the facial phenotypes both share (root g), or a disease's (d).
_ANNOTATIONS = ("MATCH (g:Genotype)-[c:Cause]->(d:Disease)-[e:Exhibit]->(p:FacePhenotype)<-[a:Affect]-(g) "
                "WHERE {root}.nid = $id AND c.source CONTAINS 'HPO' AND e.source CONTAINS 'HPO' "
                "AND a.source CONTAINS 'HPO' "
                "RETURN g.geneName AS gene, p.phenotypeName AS phenotype, d.dname AS disease")

# Curated facts about a gene: its diseases' curated findings and its curated diseases (Cause), its curated
# findings (Affect); about a disease: its curated findings and its curated genes.
_CURATED = {
    "Genotype": ("MATCH (g:Genotype)-[c:Cause]->(d:Disease) WHERE g.nid = $id "
                 "OPTIONAL MATCH (d)-[e:Exhibit]->(p:FacePhenotype) WHERE e.source = 'curated' "
                 "WITH c, d, p WHERE c.source = 'curated' OR p IS NOT NULL "
                 "RETURN DISTINCT p.phenotypeName AS phenotype, d.dname AS disease, null AS gene "
                 "UNION MATCH (g:Genotype)-[a:Affect]->(p:FacePhenotype) WHERE g.nid = $id AND a.source = 'curated' "
                 "RETURN p.phenotypeName AS phenotype, null AS disease, null AS gene"),
    "Disease": ("MATCH (d:Disease)-[e:Exhibit]->(p:FacePhenotype) WHERE d.nid = $id AND e.source = 'curated' "
                "RETURN p.phenotypeName AS phenotype, null AS disease, null AS gene "
                "UNION MATCH (g:Genotype)-[c:Cause]->(d:Disease) WHERE d.nid = $id AND c.source = 'curated' "
                "RETURN null AS phenotype, null AS disease, g.geneName AS gene"),
}


@dataclass(frozen=True)
class Node:
    kind: str  # gene, variant, phenotype, disease
    name: str
    merged: bool = False  # "N other ...": the nodes under the minimum count or beyond a column's cap


@dataclass
class Flows:
    """Links (source node, target node, origin) → count, in the order the columns are drawn."""

    root: Node
    columns: tuple[str, ...]
    counts: Counter = field(default_factory=Counter)
    notices: list[str] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)

    def nodes(self) -> list[Node]:
        seen = dict.fromkeys(node for (source, target, _) in self.counts for node in (source, target))
        order = {kind: i for i, kind in enumerate(self.columns)}
        return sorted(seen, key=lambda node: (order[node.kind], node.merged, node.name.lower()))

    def links(self) -> list[tuple[Node, Node, str, int]]:
        return [(source, target, origin, n) for (source, target, origin), n in self.counts.items()]


def gene_flows(store: GraphStore, node_id: int, name: str, sources=SOURCES, min_count: int = 1) -> Flows:
    flows = Flows(Node("gene", name), ("gene", "variant", "phenotype", "disease"))
    for source in (s for s in PATIENT_SOURCES if s in sources):
        for row in _run(store, flows, _PATIENTS["Genotype"] + _PATIENT_ROWS, node_id, source):
            variant = Node("variant", short_variant(row["variant"]))
            flows.counts[(flows.root, variant, source)] += 1
            for phenotype in row["phenotypes"] or [NO_PHENOTYPE]:
                flows.counts[(variant, Node("phenotype", phenotype), source)] += 1
                for disease in row["diseases"]:
                    flows.counts[(Node("phenotype", phenotype), Node("disease", disease), source)] += 1
    if "HPO" in sources:
        step = Node("variant", HPO_STEP)
        for row in _run(store, flows, _ANNOTATIONS.format(root="g"), node_id):
            phenotype = Node("phenotype", row["phenotype"])
            flows.counts[(step, phenotype, "HPO")] = 1
            flows.counts[(phenotype, Node("disease", row["disease"]), "HPO")] = 1
        if step in {source for source, _, _ in flows.counts}:
            flows.counts[(flows.root, step, "HPO")] = sum(n for (s, _, _), n in flows.counts.items() if s == step)
    if "curated" in sources:
        step = Node("variant", CURATED_STEP)
        for row in _run(store, flows, _CURATED["Genotype"], node_id):
            phenotype = Node("phenotype", row["phenotype"] or NO_PHENOTYPE)
            flows.counts[(step, phenotype, "curated")] = 1
            if row["disease"]:
                flows.counts[(phenotype, Node("disease", row["disease"]), "curated")] = 1
        if step in {source for source, _, _ in flows.counts}:
            flows.counts[(flows.root, step, "curated")] = sum(n for (s, _, _), n in flows.counts.items() if s == step)
    return _trimmed(flows, min_count)


def disease_flows(store: GraphStore, node_id: int, name: str, sources=SOURCES, min_count: int = 1) -> Flows:
    flows = Flows(Node("disease", name), ("disease", "phenotype", "variant", "gene"))
    for source in (s for s in PATIENT_SOURCES if s in sources):
        for row in _run(store, flows, _PATIENTS["Disease"] + _PATIENT_ROWS, node_id, source):
            gene = Node("gene", row["gene"])
            variant = Node("variant", f"{row['gene']} {short_variant(row['variant'])}")  # genes may share a c. name
            for phenotype in row["phenotypes"] or [NO_PHENOTYPE]:
                flows.counts[(flows.root, Node("phenotype", phenotype), source)] += 1
                flows.counts[(Node("phenotype", phenotype), variant, source)] += 1
            flows.counts[(variant, gene, source)] += 1
    if "HPO" in sources:
        for row in _run(store, flows, _ANNOTATIONS.format(root="d"), node_id):
            phenotype, step = Node("phenotype", row["phenotype"]), Node("variant", HPO_STEP)
            gene = Node("gene", row["gene"])
            flows.counts[(flows.root, phenotype, "HPO")] = 1
            flows.counts[(phenotype, step, "HPO")] += 1
            flows.counts[(step, gene, "HPO")] += 1
    if "curated" in sources:
        step = Node("variant", CURATED_STEP)
        rows = _run(store, flows, _CURATED["Disease"], node_id)
        phenotypes = [row["phenotype"] for row in rows if row["phenotype"]]
        genes = [row["gene"] for row in rows if row["gene"]]
        for name in phenotypes or ([NO_PHENOTYPE] if genes else []):
            flows.counts[(flows.root, Node("phenotype", name), "curated")] = 1
            flows.counts[(Node("phenotype", name), step, "curated")] = 1
        for name in genes:
            flows.counts[(step, Node("gene", name), "curated")] = 1
    return _trimmed(flows, min_count)


def _run(store: GraphStore, flows: Flows, cypher: str, node_id: int, source: str | None = None) -> list[dict]:
    flows.queries.append(cypher)
    params = {"id": node_id} if source is None else {"id": node_id, "source": source}
    return store.query(cypher, params, timeout_ms=QUERY_TIMEOUT_MS)


def _trimmed(flows: Flows, min_count: int) -> Flows:
    """Nodes whose incoming count (patients, or annotations) is under `min_count`, and those beyond a
    column's MAX_NODES_PER_COLUMN best-supported, merge into one "other ..." node per column: the
    flows stay whole and connected, and each count still adds up."""
    support: Counter = Counter()
    for (_, target, _), n in flows.counts.items():
        support[target] += n
    merged: dict[Node, Node] = {}
    for kind in flows.columns[1:]:
        column = sorted((node for node in support if node.kind == kind), key=lambda node: (-support[node], node.name))
        kept = [node for node in column if support[node] >= min_count][:MAX_NODES_PER_COLUMN]
        rest = [node for node in column if node not in set(kept)]
        if rest:
            other = Node(kind, f"{len(rest)} other {kind}s", merged=True)
            merged.update((node, other) for node in rest)
            flows.notices.append(f"{len(rest)} of {len(column)} {kind}s (under the minimum count of {min_count}, "
                                 f"or beyond the {MAX_NODES_PER_COLUMN} best-supported) are merged into "
                                 f"'{other.name}'.")
    counts: Counter = Counter()
    for (source, target, origin), n in flows.counts.items():
        counts[(merged.get(source, source), merged.get(target, target), origin)] += n
    flows.counts = counts
    return flows


def find_root(linker, name: str) -> Link | None:
    """The gene or disease `name` means: an exact gene symbol first (symbols are short and exact),
    then a disease by name, synonym or a close spelling; None when neither is in the graph."""
    gene = linker.link(name, "GENE")
    if gene.node_id is not None and gene.method in ("exact", "synonym"):
        return gene
    disease = linker.link(name, "DISEASE")
    if disease.node_id is not None:
        return disease
    return gene if gene.node_id is not None else None


def flows_for(store: GraphStore, root: Link, sources=SOURCES, min_count: int = 1) -> Flows:
    """The root's flows from `sources`; HPO's instead, with a notice, when FPKG alone was asked for
    and has no published patient for it (most of HPO's genes and diseases)."""
    build = gene_flows if root.label == "Genotype" else disease_flows
    flows = build(store, root.node_id, root.name, sources, min_count)
    if not flows.counts and tuple(sources) == ("FPKG",):
        asked = flows.queries
        flows = build(store, root.node_id, root.name, ("HPO",), min_count)
        flows.queries[:0] = asked
        flows.notices.insert(0, f"FPKG has no published patient for {root.name}: HPO's annotations are shown.")
    return flows
