"""A restart reads the start's rows from a file made on the same build, never a stale one."""

from __future__ import annotations

import shutil

import pytest

from diagnosis.profiles import ANNOTATIONS
from graphstore.startup_reads import StartupReads
from retrieval.linking import EntityLinker, aliases_from_store

GENES = "MATCH (g:Genotype) RETURN g.nid AS id, g.geneName AS name ORDER BY id LIMIT 5"


class RefusingStore:
    """Stands for a graph that must not be asked: whatever it is asked fails the test."""

    def query(self, cypher, params=None, *, timeout_ms=5000):
        pytest.fail(f"the graph was queried: {cypher[:60]}")


def test_a_restart_on_the_same_build_reads_the_file(pipeline, tmp_path):
    manifest = tmp_path / "graph.json"
    manifest.write_text('{"counts": {"nodes": 1}}')
    first = StartupReads.for_manifest(pipeline.store, manifest, tmp_path)
    genes = first.query(GENES)
    annotations = first.query(ANNOTATIONS, timeout_ms=120_000)
    assert genes == pipeline.store.query(GENES) and len(annotations) > 60_000
    first.save()
    again = StartupReads.for_manifest(RefusingStore(), manifest, tmp_path)
    assert again.loaded and again.query(GENES) == genes and again.query(ANNOTATIONS) == annotations


def test_a_rebuilt_graph_is_read_again_and_the_old_file_goes(pipeline, tmp_path):
    manifest = tmp_path / "graph.json"
    manifest.write_text('{"counts": {"nodes": 1}}')
    first = StartupReads.for_manifest(pipeline.store, manifest, tmp_path)
    first.query(GENES)
    first.save()
    manifest.write_text('{"counts": {"nodes": 2}}')  # a rebuild writes a new manifest
    rebuilt = StartupReads.for_manifest(pipeline.store, manifest, tmp_path)
    assert not rebuilt.loaded and rebuilt.path != first.path
    rebuilt.query(GENES)
    rebuilt.save()
    assert [p.name for p in (tmp_path / "startup").iterdir()] == [rebuilt.path.name]


def test_a_damaged_file_or_no_manifest_means_asking_the_graph(pipeline, tmp_path):
    manifest = tmp_path / "graph.json"
    manifest.write_text("{}")
    reads = StartupReads.for_manifest(pipeline.store, manifest, tmp_path)
    reads.path.parent.mkdir(parents=True)
    reads.path.write_bytes(b"\x80\x05 not a pickle")
    damaged = StartupReads.for_manifest(pipeline.store, manifest, tmp_path)
    assert not damaged.loaded and damaged.query(GENES) == pipeline.store.query(GENES)
    unbuilt = StartupReads.for_manifest(pipeline.store, tmp_path / "absent.json", tmp_path)
    unbuilt.query(GENES)
    unbuilt.save()  # no build to name it after: nothing is kept
    assert unbuilt.path is None


def test_the_linker_built_from_cached_parts_links_as_the_fresh_one(pipeline, test_settings, tmp_path):
    aliases = aliases_from_store(pipeline.store)
    (tmp_path / "linking").mkdir()
    for vectors in (test_settings.cache_dir / "linking").glob("*.npy"):  # embeddings: minutes to make
        shutil.copy2(vectors, tmp_path / "linking" / vectors.name)
    fresh = EntityLinker(aliases, tmp_path)  # makes the text parts and writes them
    assert len(list((tmp_path / "linking").glob("*-text.pickle"))) == 3
    cached = EntityLinker(aliases, tmp_path)  # reads them
    for mention, kind in [("Hypertelorsim", "FACIAL_PHENOTYPE"), ("kabuki syndrom", "DISEASE"), ("kmt2d", "GENE"),
                          ("wide-set eyes", "FACIAL_PHENOTYPE")]:
        assert cached.link(mention, kind) == fresh.link(mention, kind), mention
    (next((tmp_path / "linking").glob("Genotype-*-text.pickle"))).write_bytes(b"damaged")
    assert EntityLinker(aliases, tmp_path).link("kmt2d", "GENE") == fresh.link("kmt2d", "GENE")

