"""Building FPKG (+ HPO) into a real embedded FalkorDB: counts, idempotence, atomicity, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from fpkg.errors import DataFileError, HpoError
from kg_dump.build import LOOKUP_INDEXES, build, ensure_built
from kg_dump.data_files import data_file
from tests.support.paths import REPO_ROOT

# FPKG.dump's counts (tests/kg_dump/test_dump_reader.py) less the 242 variant nodes of one variant, gene and paper
# merged into one (and their 242 Have and 140 Cause relationships that said the same again: kg_dump/variant_cleaning.py)
FPKG_LABELS = {"FacePhenotype": 2623, "Variation": 1000, "Sample": 1147, "Article": 509, "Genotype": 397,
               "Disease": 225}
FPKG_NODES, FPKG_RELATIONSHIPS = 6143 - 242, 19282 - 242 - 140
UPSTREAM_EXAMPLE = ('MATCH (d:Disease)-[:Exhibit]->(fp:FacePhenotype {phenotypeName: "Cleft palate"}) '
                    "RETURN d, fp")
REPO = REPO_ROOT


@pytest.fixture
def fpkg_settings(test_settings, falkordb_store, tmp_path):
    # The store fixture's own graph name, and a cache folder of the test's own for the manifest.
    return replace(test_settings, graph_name=falkordb_store.graph_name, cache_dir=tmp_path)


def test_fpkg_alone_builds_with_the_published_counts(falkordb_store, fpkg_settings):
    report = build(falkordb_store, fpkg_settings, with_hpo=False)
    counts = falkordb_store.counts()
    assert counts["total_nodes"] == FPKG_NODES and counts["total_relationships"] == FPKG_RELATIONSHIPS
    assert counts["nodes"] == FPKG_LABELS and counts["relationships"]["with_Var"] == 1239  # every patient's kept
    assert report.counts["nodes"] == FPKG_NODES and not report.skipped
    rows = falkordb_store.query(UPSTREAM_EXAMPLE)
    assert rows and all(row["d"]["labels"] == ["Disease"] for row in rows)
    # Building twice gives the same graph; a matching store is not rebuilt.
    build(falkordb_store, fpkg_settings, with_hpo=False)
    assert falkordb_store.counts() == counts
    assert ensure_built(falkordb_store, fpkg_settings, with_hpo=False).skipped


def test_variant_names_that_are_no_variant_name_no_node_and_two_spellings_are_one(falkordb_store, fpkg_settings):
    report = build(falkordb_store, fpkg_settings, with_hpo=False)
    query = falkordb_store.query
    # a sentence names no node; its patients (the paper's CHARGE cohort) keep their gene and disease
    assert not query("MATCH (v:Variation) WHERE v.details CONTAINS 'account for' RETURN v.nid AS v")
    assert query("MATCH (s:Sample {sid: 's_16400610_1'})-[:with_Var]->(v:Variation)-[:Have]->(g:Genotype) "
                 "MATCH (v)-[:Cause]->(d:Disease) RETURN v.details AS details, g.geneName AS gene, "
                 "d.dname AS disease") == [{"details": "unnamed variant", "gene": "CHD7", "disease": "CHARGE syndrome"}]
    # FKBP10's c.807_828dup in PMID 35278031, written "(P277Afs*103)" for two patients and "(p.P277Afs*103)" for
    # two others: one node, carried by all four, both spellings kept on it
    rows = query("MATCH (s:Sample)-[:with_Var]->(v:Variation)-[:Have]->(:Genotype {geneName: 'FKBP10'}) "
                 "WHERE v.pmid = 35278031 AND v.details STARTS WITH 'c.807_828dup' "
                 "RETURN v.details AS details, v.other_details AS other, count(DISTINCT s) AS patients")
    assert len(rows) == 1 and rows[0]["patients"] == 4
    assert {rows[0]["details"], rows[0]["other"]} == {"c.807_828dup (P277Afs*103)", "c.807_828dup (p.P277Afs*103)"}
    # one written form in every paper: FGFR2's c.1026C>G, once "c.1026C > G (C342W) in exon 10"
    assert not query("MATCH (v:Variation) WHERE v.details CONTAINS ' > ' RETURN v.nid AS v")
    assert {row["paper"] for row in query("MATCH (v:Variation {variation_gene_name: 'FGFR2'}) WHERE v.details "
                                          "STARTS WITH 'c.1026C>G' RETURN v.pmid AS paper")} == {27803855, 33725872}
    assert report.variants["set_aside"] == {"placeholder": 2, "sentence": 2}
    assert report.variants["merged"] == 242 and report.variants["examples"]["set aside (sentence)"]


def test_a_failed_build_leaves_the_previous_graph(falkordb_store, fpkg_settings, tmp_path):
    build(falkordb_store, fpkg_settings, with_hpo=False)
    before = falkordb_store.counts()
    with pytest.raises(HpoError):
        build(falkordb_store, fpkg_settings, with_hpo=True, hpo_dir=tmp_path / "no-hpo-here")
    assert falkordb_store.counts() == before


def test_full_graph_keeps_fpkg_names_and_records_sources(pipeline):
    store = pipeline.store
    counts = store.counts()
    assert counts["nodes"]["Disease"] > 8000 and counts["relationships"]["is_a"] > 3000
    sources = store.query("MATCH (n) RETURN DISTINCT n.source AS source")
    assert {row["source"] for row in sources} == {"FPKG", "HPO", "FPKG+HPO", "phenopacket-store"}
    assert store.query("MATCH ()-[r]->() WHERE r.source IS NULL RETURN count(r) AS n")[0]["n"] == 0
    assert store.query(UPSTREAM_EXAMPLE)
    patterns = {(s, t, e) for s, t, e, _ in store.schema().patterns}
    assert ("Disease", "Exhibit", "FacePhenotype") in patterns and ("Genotype", "Cause", "Disease") in patterns
    assert set(LOOKUP_INDEXES) >= {("Disease", "dname"), ("FacePhenotype", "phenotypeName")}


def test_stats_cli_prints_counts_and_hpo_merge(pipeline, test_settings):
    env = {**os.environ, "FPKG_DATA_DIR": str(test_settings.data_dir),
           "FPKG_CACHE_DIR": str(test_settings.cache_dir), "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-m", "kg_dump", "stats"], env=env, cwd=REPO, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "FPKG nodes merged with HPO" in out.stdout and "(Disease)-[:Exhibit]->(FacePhenotype)" in out.stdout
    as_json = subprocess.run([sys.executable, "-m", "kg_dump", "stats", "--json"], env=env, cwd=REPO,
                             capture_output=True, text=True, timeout=300)
    stats = json.loads(as_json.stdout)
    counts = pipeline.store.counts()
    assert (stats["nodes"], stats["relationships"]) == (counts["total_nodes"], counts["total_relationships"])
    assert stats["nodes_by_label"] == counts["nodes"] and stats["build"]["with_hpo"] is True
    assert {"start": "Disease", "type": "Exhibit", "end": "FacePhenotype"}.items() <= next(
        p for p in stats["relationships_by_pattern"] if p["type"] == "Exhibit").items()


def test_fetch_names_the_data_files_and_refuses_unknown_ones(test_settings):
    env = {**os.environ, "FPKG_DATA_DIR": str(test_settings.data_dir), "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-m", "kg_dump", "fetch", "FPKG.dump"], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout.strip() == str(test_settings.data_dir / "FPKG.dump")
    refused = subprocess.run([sys.executable, "-m", "kg_dump", "fetch", "FPKG.dump", "../etc/passwd"], env=env,
                             cwd=REPO, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "not a published data file: ../etc/passwd" in refused.stderr
    assert not refused.stdout  # nothing fetched before the check


def test_cli_errors_are_messages_not_tracebacks(tmp_path):
    env = {**os.environ, "FPKG_DATA_DIR": str(tmp_path / "empty"), "FPKG_CACHE_DIR": str(tmp_path / "cache"),
           "GRAPH_BACKEND": "nosuchdb", "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-m", "kg_dump", "build"], env=env, cwd=REPO, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 2 and "GRAPH_BACKEND" in out.stderr and "Traceback" not in out.stderr


def test_missing_data_file_says_what_to_do(tmp_path):
    with pytest.raises(DataFileError, match="FPKG_DATA_DIR") as error:
        data_file(tmp_path, "FPKG.dump", download=False)
    assert "16a605ada168d33cba94a113a790f5c2749d6abc4094c7e6f07ec7dcd848a896" in str(error.value)
