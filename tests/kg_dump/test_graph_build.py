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

FPKG_LABELS = {"FacePhenotype": 2623, "Variation": 1242, "Sample": 1147, "Article": 509, "Genotype": 397,
               "Disease": 225}
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
    assert counts["total_nodes"] == 6143 and counts["total_relationships"] == 19282
    assert counts["nodes"] == FPKG_LABELS
    assert report.counts["nodes"] == 6143 and not report.skipped
    rows = falkordb_store.query(UPSTREAM_EXAMPLE)
    assert rows and all(row["d"]["labels"] == ["Disease"] for row in rows)
    # Building twice gives the same graph; a matching store is not rebuilt.
    build(falkordb_store, fpkg_settings, with_hpo=False)
    assert falkordb_store.counts() == counts
    assert ensure_built(falkordb_store, fpkg_settings, with_hpo=False).skipped


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
