"""The Explore Sankey's flows on the real graph, checked against Cypher counts of the same things."""

from __future__ import annotations

import pytest

from explore.flows import MAX_NODES_PER_COLUMN, NO_PHENOTYPE, disease_flows, find_root, flows_for, gene_flows
from explore.sankey import TABLE_HEADERS, node_label, sankey_figure, table_rows, write_html

KDM6A_PATIENTS = ("MATCH (g:Genotype {geneName: 'KDM6A'})<-[:Have]-(v:Variation)"
                  "<-[:with_Var]-(s:Sample {source: 'FPKG'}) ")


def count(store, cypher: str) -> int:
    return store.query(cypher)[0]["n"]


@pytest.fixture(scope="module")
def kdm6a(pipeline):
    return find_root(pipeline.linker, "KDM6A")


def test_kdm6a_has_the_papers_columns_and_the_graphs_counts(pipeline, kdm6a):
    """The paper's Fig. 5 structure: gene → variants → facial phenotypes → diseases, from patients."""
    store = pipeline.store
    flows = gene_flows(store, kdm6a.node_id, kdm6a.name, sources=("FPKG",))
    nodes = flows.nodes()
    by_kind = {kind: [node for node in nodes if node.kind == kind] for kind in flows.columns}
    assert [node.name for node in by_kind["gene"]] == ["KDM6A"]
    assert len(by_kind["variant"]) == count(store, KDM6A_PATIENTS + "RETURN count(DISTINCT v) AS n")
    bare = count(store, KDM6A_PATIENTS + "WHERE NOT (s)<-[:with_FP]-(:FacePhenotype) RETURN count(s) AS n")
    assert bare == 1 and NO_PHENOTYPE in [node.name for node in by_kind["phenotype"]]
    assert len(by_kind["phenotype"]) == 1 + count(
        store, KDM6A_PATIENTS + "MATCH (p:FacePhenotype)-[:with_FP]->(s) RETURN count(DISTINCT p) AS n")
    assert len(by_kind["disease"]) == count(store, KDM6A_PATIENTS + "MATCH (v)-[:Cause]->(d:Disease) "
                                                                   "RETURN count(DISTINCT d) AS n")
    links = flows.links()
    # each count is patients: all of the gene's patients leave the gene, each phenotype seen once per patient
    assert sum(n for source, _, _, n in links if source.kind == "gene") == count(
        store, KDM6A_PATIENTS + "RETURN count(DISTINCT s) AS n")
    # (counted per patient, then summed: FalkorDB's ungrouped count(*) over this path gives one less)
    assert sum(n for source, _, _, n in links if source.kind == "variant") == bare + count(
        store, KDM6A_PATIENTS + "MATCH (p:FacePhenotype)-[:with_FP]->(s) WITH s, count(p) AS k RETURN sum(k) AS n")
    assert {origin for _, _, origin, _ in links} == {"FPKG"}
    assert all(node.kind in ("variant", "gene") or not node.name.startswith("c.") for node in nodes)
    assert all(";" not in node.name and "  " not in node.name for node in by_kind["variant"])


def test_hpo_adds_annotations_and_the_widest_column_is_cut_with_a_notice(pipeline, kdm6a):
    flows = gene_flows(pipeline.store, kdm6a.node_id, kdm6a.name)
    origins = {origin for _, _, origin, _ in flows.links()}
    assert origins == {"FPKG", "HPO", "phenopacket-store"}  # each source's patients counted apart
    phenotypes = [node.name for node in flows.nodes() if node.kind == "phenotype"]
    assert len(phenotypes) == MAX_NODES_PER_COLUMN + 1
    others = [name for name in phenotypes if name.endswith(" other phenotypes")]
    assert len(others) == 1 and any(f"merged into '{others[0]}'" in notice for notice in flows.notices)
    whole = gene_flows(pipeline.store, kdm6a.node_id, kdm6a.name)
    assert sum(n for source, _, _, n in flows.links() if source == flows.root) == \
        sum(n for source, _, _, n in whole.links() if source == whole.root)  # merged, not lost


def test_a_minimum_count_merges_rare_nodes_and_keeps_every_count(pipeline):
    root = find_root(pipeline.linker, "CHD7")
    everything = gene_flows(pipeline.store, root.node_id, root.name, sources=("FPKG",), min_count=1)
    strong = gene_flows(pipeline.store, root.node_id, root.name, sources=("FPKG",), min_count=3)
    assert len(strong.nodes()) < len(everything.nodes())
    for flows in (everything, strong):
        for kind in flows.columns[1:]:  # every column carries the same patients
            column = [node for node in flows.nodes() if node.kind == kind]
            assert sum(n for _, target, _, n in flows.links() if target in column) == \
                sum(n for _, target, _, n in everything.links() if target.kind == kind)
    inflow = {node: sum(n for _, target, _, n in strong.links() if target == node) for node in strong.nodes()}
    assert all(inflow[node] >= 3 for node in strong.nodes() if node != strong.root and not node.merged)


def test_a_disease_reads_the_other_way(pipeline):
    root = find_root(pipeline.linker, "Kabuki syndrome 2")
    assert root.label == "Disease"
    flows = disease_flows(pipeline.store, root.node_id, root.name, sources=("FPKG",))
    assert flows.columns == ("disease", "phenotype", "variant", "gene")
    genes = [node.name for node in flows.nodes() if node.kind == "gene"]
    assert genes == ["KDM6A"]
    assert flows_for(pipeline.store, root, ("FPKG",)).counts == flows.counts


@pytest.mark.parametrize("typed, label, name", [("kdm6a", "Genotype", "KDM6A"),
                                                 ("Kabuki syndrom 2", "Disease", "Kabuki syndrome 2 (KS2)")])
def test_names_are_found_as_typed(pipeline, typed, label, name):
    root = find_root(pipeline.linker, typed)
    assert (root.label, root.name) == (label, name)


def test_an_unknown_name_finds_nothing(pipeline):
    assert find_root(pipeline.linker, "Qwertyuiop zxcv") is None


def test_figure_table_and_html_carry_the_same_links(pipeline, kdm6a, tmp_path):
    flows = gene_flows(pipeline.store, kdm6a.node_id, kdm6a.name, sources=("FPKG",))
    figure = sankey_figure(flows)
    sankey = figure.data[0]
    assert len(sankey.node.label) == len(flows.nodes()) and len(sankey.link.value) == len(flows.counts)
    assert sorted(sankey.link.value) == sorted(n for _, _, _, n in flows.links())
    assert list(sankey.node.customdata) == [node.kind for node in flows.nodes()]
    rows = table_rows(flows)
    assert len(rows) == len(flows.counts) and all(len(row) == len(TABLE_HEADERS) for row in rows)
    page = write_html(figure, tmp_path / "kdm6a.html").read_text()
    assert "c.3715T" in page and "Plotly.newPlot" in page
    assert "cdn.plot.ly/plotly-" in page and len(page) <= 1_000_000  # plotly.js from its CDN: a small download


def test_without_published_patients_hpo_is_shown_with_a_notice(pipeline):
    row = pipeline.store.query("MATCH (g:Genotype)-[:Cause]->(:Disease)-[:Exhibit]->(:FacePhenotype)<-[:Affect]-(g) "
                               "WHERE NOT (g)<-[:Have]-(:Variation) RETURN g.geneName AS name LIMIT 1")[0]
    root = find_root(pipeline.linker, row["name"])
    flows = flows_for(pipeline.store, root, ("FPKG",))
    assert flows.counts and {origin for _, _, origin, _ in flows.links()} == {"HPO"}
    assert flows.notices[0].startswith(f"FPKG has no published patient for {row['name']}")
    assert [node.name for node in flows.nodes() if node.kind == "variant"] == ["HPO annotation"]


def test_a_node_label_has_no_wrapping_quotes_nor_full_width_forms():
    assert node_label('"Kabuki make-up"') == "Kabuki make-up"
    assert node_label("Intellectual disability（IDDFBA）") == "Intellectual disability(IDDFBA)"
