"""Curated facts in a gene's and a disease's flows (a small graph in the session's FalkorDB)."""

from __future__ import annotations

from curation.facts import Fact
from curation.layer import CuratedLayer
from explore.flows import CURATED_STEP, NO_PHENOTYPE, disease_flows, gene_flows
from graphstore.graph import Graph, Node, Relationship


def graph() -> Graph:
    return Graph([Node(1, ["Disease"], {"dname": "Noonan syndrome"}),
                  Node(2, ["Disease"], {"dname": "Costello syndrome"}),
                  Node(10, ["FacePhenotype"], {"phenotypeName": "Hypertelorism"}),
                  Node(11, ["FacePhenotype"], {"phenotypeName": "Ptosis"}),
                  Node(20, ["Genotype"], {"geneName": "PTPN11"})],
                 [Relationship(100, "Cause", 20, 1, {"source": "HPO"}),
                  Relationship(101, "Exhibit", 1, 11, {"source": "HPO"})])


def links(flows) -> set[tuple[str, str, str, int]]:
    return {(s.name, t.name, origin, n) for s, t, origin, n in flows.links()}


def test_curated_facts_flow_through_their_own_step(falkordb_store, tmp_path):
    falkordb_store.load(graph())
    layer = CuratedLayer.open(falkordb_store, tmp_path / "overlay.jsonl")
    layer.merge("cara", [Fact("Disease", "Noonan syndrome", "Exhibit", "FacePhenotype", "Hypertelorism"),
                         Fact("Genotype", "PTPN11", "Cause", "Disease", "Costello syndrome"),
                         Fact("Genotype", "PTPN11", "Affect", "FacePhenotype", "Ptosis")], pmid="12345678")
    gene = gene_flows(falkordb_store, 20, "PTPN11", ("curated",))
    assert links(gene) == {
        ("PTPN11", CURATED_STEP, "curated", 3),
        (CURATED_STEP, "Hypertelorism", "curated", 1), ("Hypertelorism", "Noonan syndrome", "curated", 1),
        (CURATED_STEP, NO_PHENOTYPE, "curated", 1), (NO_PHENOTYPE, "Costello syndrome", "curated", 1),
        (CURATED_STEP, "Ptosis", "curated", 1)}
    assert links(gene_flows(falkordb_store, 20, "PTPN11", ("HPO",))) == set()  # HPO's own: no Exhibit+Affect pair
    noonan = disease_flows(falkordb_store, 1, "Noonan syndrome", ("curated",))
    assert links(noonan) == {("Noonan syndrome", "Hypertelorism", "curated", 1),
                             ("Hypertelorism", CURATED_STEP, "curated", 1)}
    costello = disease_flows(falkordb_store, 2, "Costello syndrome", ("curated",))
    assert links(costello) == {("Costello syndrome", NO_PHENOTYPE, "curated", 1),
                               (NO_PHENOTYPE, CURATED_STEP, "curated", 1), (CURATED_STEP, "PTPN11", "curated", 1)}
    layer.undo(1, "ada")
    assert links(gene_flows(falkordb_store, 20, "PTPN11", ("curated",))) == set()
