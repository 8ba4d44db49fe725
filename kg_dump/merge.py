"""Merging the HPO layer into FPKG without duplicating what FPKG already holds.

FPKG's labels, relationship types and property names are kept, so the paper's Cypher
still runs. Phenotypes merge by HPO id or exact name/synonym, genes by symbol, diseases by
OMIM id or normalised name. Every node and relationship says where it came from in
`source`: "FPKG", "HPO", or "FPKG+HPO" when both hold it.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from fpkg.names import fold_name
from graphstore.graph import Graph, Node, Relationship
from graphstore.schema import AFFECT, CAUSE, DISEASE, EXHIBIT, FPKG, FPKG_AND_HPO, HPO, IS_A
from identity.mondo import Mondo
from identity.series import SeriesCorrections, correct_series_links
from kg_dump.disease_identity import (
    ID_SEPARATOR,
    IdentityReport,
    add_other_name,
    identify_fpkg_diseases,
    link_groups,
    split_list,
)
from kg_dump.hpo_layer import HpoLayer
from kg_dump.merge_patients import PatientsReport, merge_patients
from kg_dump.phenopacket_store import StoreRead

HPO_ID_OFFSET = 1_000_000  # new nodes and relationships get ids above FPKG's
SYNONYM_SEPARATOR = ";"  # FPKG stores synonyms as one ';'-joined string


@dataclass
class MergeReport:
    merged: Counter = field(default_factory=Counter)  # label → FPKG nodes that HPO matched
    added_nodes: Counter = field(default_factory=Counter)
    added_relationships: Counter = field(default_factory=Counter)
    merged_relationships: Counter = field(default_factory=Counter)
    identity: IdentityReport = field(default_factory=IdentityReport)
    series: SeriesCorrections = field(default_factory=SeriesCorrections)
    patients: PatientsReport | None = None  # the published patients merged (phenopacket-store)


def tag_fpkg_sources(graph: Graph) -> None:
    """Marks FPKG's items as such, and gives keys stored with stray backquotes (the dump's
    "`sample number`") their plain name, which Cypher can quote."""
    for item in (*graph.nodes, *graph.relationships):
        for key in [k for k in item.properties if "`" in k]:
            item.properties[key.replace("`", "")] = item.properties.pop(key)
        item.properties["source"] = FPKG
    for node in graph.nodes:
        if "Disease" in node.labels and isinstance(node.properties.get("did"), int):
            node.properties["disease_id"] = f"OMIM:{node.properties['did']}"


class _Merger:
    def __init__(self, graph: Graph):
        self.graph = graph
        self.report = MergeReport()
        self.next_node_id = max([n.id for n in graph.nodes] + [HPO_ID_OFFSET]) + 1
        self.next_rel_id = max([r.id for r in graph.relationships] + [HPO_ID_OFFSET]) + 1
        self.pairs = {(r.start, r.type, r.end): r for r in graph.relationships}
        # what each source added, by label and by type (the report's counts are HPO's)
        self.added: dict[str, Counter] = defaultdict(Counter, {HPO: self.report.added_nodes})
        self.added_relationships: dict[str, Counter] = defaultdict(Counter, {HPO: self.report.added_relationships})

    def nodes_with(self, label: str) -> list[Node]:
        return [n for n in self.graph.nodes if label in n.labels]

    def add_node(self, label: str, properties: dict, source: str = HPO) -> Node:
        node = Node(self.next_node_id, [label], {**properties, "source": source})
        self.next_node_id += 1
        self.graph.nodes.append(node)
        self.added[source][label] += 1
        return node

    def mark_merged(self, node: Node, label: str, extra: dict) -> None:
        for key, value in extra.items():
            if value not in (None, "", []) and not node.properties.get(key):
                node.properties[key] = value
        if node.properties.get("source") != FPKG_AND_HPO:
            node.properties["source"] = FPKG_AND_HPO
            self.report.merged[label] += 1

    def link(self, start: int, rel_type: str, end: int, properties: dict | None = None,
             source: str = HPO) -> Relationship:
        properties = {k: v for k, v in (properties or {}).items() if v is not None}
        existing = self.pairs.get((start, rel_type, end))
        if existing is not None:
            if source == HPO and existing.properties.get("source") == FPKG:
                existing.properties.update(properties)
                existing.properties["source"] = FPKG_AND_HPO
                self.report.merged_relationships[rel_type] += 1
            return existing
        rel = Relationship(self.next_rel_id, rel_type, start, end, {**properties, "source": source})
        self.next_rel_id += 1
        self.graph.relationships.append(rel)
        self.pairs[(start, rel_type, end)] = rel
        self.added_relationships[source][rel_type] += 1
        return rel


EXCLUDES_SEPARATOR = ";"


def merge_hpo(graph: Graph, layer: HpoLayer, mondo: Mondo | None = None,
              patients: StoreRead | None = None) -> MergeReport:
    """Adds `layer` to `graph` in place (FPKG nodes must already carry `source`), with disease identity
    from `mondo` (`kg_dump.disease_identity`; none when it is empty), and the published `patients`
    (`kg_dump.merge_patients`) before groups are linked, so that a disease only they name has its group."""
    mondo = mondo or Mondo()
    merger = _Merger(graph)
    identify_fpkg_diseases(graph, mondo, merger.report.identity)
    phenotype_ids = _merge_phenotypes(merger, layer)
    disease_ids = _merge_diseases(merger, layer, mondo)
    gene_diseases, merger.report.series = correct_series_links(set(layer.gene_diseases), mondo)
    for series in sorted({d for _, d in gene_diseases if d not in disease_ids}):  # a series' own entry
        disease_ids[series] = merger.add_node(DISEASE, {"dname": mondo.label(mondo.of(series)),
                                                        "disease_id": series, "mondo_id": mondo.of(series)}).id
    gene_ids = _merge_genes(merger, layer)
    for term in layer.phenotypes:
        for parent in term["parents"]:
            merger.link(phenotype_ids[term["hpo_id"]], IS_A, phenotype_ids[parent])
    for disease_id, hpo_id, frequency in layer.disease_phenotypes:
        merger.link(disease_ids[disease_id], EXHIBIT, phenotype_ids[hpo_id], {"frequency": frequency})
    for symbol, hpo_id in layer.gene_phenotypes:
        merger.link(gene_ids[symbol], AFFECT, phenotype_ids[hpo_id])
    for symbol, disease_id in sorted(gene_diseases):
        merger.link(gene_ids[symbol], CAUSE, disease_ids[disease_id])
    _mark_exclusions(merger, layer, disease_ids)
    if patients is not None:
        merger.report.patients = merge_patients(merger, patients, mondo)
    merger.next_rel_id = link_groups(graph, mondo, merger.report.identity, merger.next_rel_id)
    return merger.report


def _mark_exclusions(merger: _Merger, layer: HpoLayer, disease_ids: dict[str, int]) -> None:
    """HPO's NOT annotations as a Disease property, `excludes`: the excluded HPO ids joined by ';'.
    A property, not a relationship: an excluded phenotype is no neighbour of the disease, and graph
    walks (vector mode, its embeddings) must not treat it as one."""
    excluded: dict[int, list[str]] = {}
    for disease_id, hpo_id in layer.disease_exclusions:
        excluded.setdefault(disease_ids[disease_id], []).append(hpo_id)
    for node in merger.nodes_with("Disease"):
        if node.id in excluded:  # (both lists for a disease under an OMIM and an ORPHA id)
            node.properties["excludes"] = EXCLUDES_SEPARATOR.join(sorted(set(excluded[node.id])))


def _merge_phenotypes(merger: _Merger, layer: HpoLayer) -> dict[str, int]:
    by_hpo_id: dict[str, Node] = {}
    by_name: dict[str, Node] = {}
    for node in merger.nodes_with("FacePhenotype"):
        pid = node.properties.get("pid") or ""
        if pid.startswith("HP:"):
            by_hpo_id.setdefault(pid, node)
        if node.properties.get("phenotypeName"):
            by_name.setdefault(fold_name(node.properties["phenotypeName"]), node)
    ids: dict[str, int] = {}
    for term in layer.phenotypes:
        properties = {"pid": term["hpo_id"], "phenotypeName": term["name"],
                      "synonyms": SYNONYM_SEPARATOR.join(term["synonyms"]),
                      "description": term["definition"], "ic": term["ic"]}
        names = [term["name"], *term["synonyms"]]
        node = by_hpo_id.get(term["hpo_id"]) or next(
            (by_name[fold_name(n)] for n in names if fold_name(n) in by_name), None)
        if node is None:
            node = merger.add_node("FacePhenotype", properties)
        else:
            merger.mark_merged(node, "FacePhenotype", {**properties, "ic": term["ic"]})
            node.properties["ic"] = term["ic"]
            node.properties.setdefault("hpo_id", term["hpo_id"])
        node.properties["hpo_id"] = term["hpo_id"]
        ids[term["hpo_id"]] = node.id
    return ids


def _merge_diseases(merger: _Merger, layer: HpoLayer, mondo: Mondo) -> dict[str, int]:
    """One node per disease: an entry joins the node of its id, else of its MONDO id, else of its name
    when MONDO does not tell the two apart (`kg_dump.disease_identity`)."""
    by_id: dict[str, Node] = {}
    by_mondo: dict[str, Node] = {}
    by_name: dict[str, Node] = {}
    for node in merger.nodes_with(DISEASE):
        _index(node, by_id, by_mondo, by_name)
    ids: dict[str, int] = {}
    for disease_id, name in sorted(layer.diseases.items()):  # OMIM before ORPHA: an OMIM name is shown
        mondo_id = mondo.of(disease_id)
        node = by_id.get(disease_id) or (by_mondo.get(mondo_id) if mondo_id else None)
        named = by_name.get(fold_name(name))
        if node is None and named is not None and named.properties.get("mondo_id") in (None, mondo_id):
            node = named
        if node is None:
            properties = {"dname": name, "disease_id": disease_id, "mondo_id": mondo_id}
            if disease_id.startswith("OMIM:"):
                properties["did"] = int(disease_id[5:])
            node = merger.add_node(DISEASE, {k: v for k, v in properties.items() if v is not None})
        elif node.properties["source"] == HPO:  # one disease under an OMIM and an ORPHA id
            _add_entry(node, disease_id, name)
        else:
            merger.mark_merged(node, DISEASE, {"disease_id": disease_id, "mondo_id": mondo_id})
            _add_entry(node, disease_id, name, "hpo_name")
        _index(node, by_id, by_mondo, by_name)
        ids[disease_id] = node.id
    return ids


def _index(node: Node, by_id: dict, by_mondo: dict, by_name: dict) -> None:
    properties = node.properties
    for disease_id in [properties.get("disease_id"), *split_list(properties.get("other_ids"))]:
        if disease_id:
            by_id.setdefault(disease_id, node)
    if properties.get("mondo_id"):
        by_mondo.setdefault(properties["mondo_id"], node)
    by_name.setdefault(fold_name(properties.get("dname", "")), node)


def _add_entry(node: Node, disease_id: str, name: str, name_key: str = "other_names") -> None:
    """Another entry's id and name on a node that already is the disease."""
    properties = node.properties
    if disease_id != properties.get("disease_id") and disease_id not in split_list(properties.get("other_ids")):
        properties["other_ids"] = ID_SEPARATOR.join([*split_list(properties.get("other_ids")), disease_id])
    if disease_id.startswith("ORPHA:"):
        properties.setdefault("orpha_id", disease_id)
    if name_key == "hpo_name" and fold_name(name) != fold_name(properties.get("dname", "")) \
            and "hpo_name" not in properties:
        properties["hpo_name"] = name  # HPO's name for an FPKG disease: the first entry's
    elif fold_name(name) != fold_name(properties.get("hpo_name", "")):
        add_other_name(properties, name)  # the names of the entries after it (an Orphanet twin)


def _merge_genes(merger: _Merger, layer: HpoLayer) -> dict[str, int]:
    by_symbol = {n.properties.get("geneName"): n for n in merger.nodes_with("Genotype")}
    ids: dict[str, int] = {}
    for symbol, ncbi_id in sorted(layer.genes.items()):
        node = by_symbol.get(symbol)
        if node is None:
            node = merger.add_node("Genotype", {"geneName": symbol, "geneId": ncbi_id})
        else:
            merger.mark_merged(node, "Genotype", {"geneId": ncbi_id})
        ids[symbol] = node.id
    return ids
