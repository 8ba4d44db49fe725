"""Building the graph (FPKG, plus the HPO layer) into the configured store, once.

A manifest in the cache folder records what was built from which inputs, so a start
with a matching store (e.g. restored from its snapshot) skips the build.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from fpkg.config import Settings
from fpkg.errors import GraphNotLoaded
from graphstore.graph import Graph
from identity.mondo import Mondo, tables_fingerprint
from kg_dump.dump_reader import read_dump
from kg_dump.hpo_layer import load_hpo_layer, release_fingerprint
from kg_dump.merge import merge_hpo, tag_fpkg_sources
from kg_dump.phenopacket_store import StoreRead, read_store
from kg_dump.sources import FPKG, MONDO, PHENOPACKET_STORE, hpo_folder, marker, phenopacket_store_sha256, source_folder
from kg_dump.variant_cleaning import clean_variants

BUILD_VERSION = 8  # bump when the graph's shape changes, to force a rebuild (8: FPKG's variants cleaned)

# (label, property) pairs that lookups and templates filter on.
LOOKUP_INDEXES = [
    ("FacePhenotype", "phenotypeName"), ("FacePhenotype", "hpo_id"), ("FacePhenotype", "pid"),
    ("Disease", "dname"), ("Disease", "disease_id"), ("Disease", "did"),
    ("Genotype", "geneName"), ("Variation", "variation_gene_name"), ("Variation", "pmid"),
    ("Article", "pmid"), ("Sample", "sid"),
]


@dataclass
class BuildReport:
    with_hpo: bool
    inputs: dict = field(default_factory=dict)
    counts: dict = field(default_factory=dict)
    merged: dict = field(default_factory=dict)
    added: dict = field(default_factory=dict)
    seconds: dict = field(default_factory=dict)
    skipped: bool = False
    hpo_release: str = ""  # hp.obo's data-version, e.g. "hp/releases/2025-01-16"
    mondo_release: str = ""  # "" when the MONDO tables were not found: disease identity by names only
    identity: dict = field(default_factory=dict)  # what MONDO matched, grouped and corrected
    patients: dict = field(default_factory=dict)  # the published patients merged (phenopacket-store)
    variants: dict = field(default_factory=dict)  # FPKG's variant names rewritten, set aside, merged


def _inputs(settings: Settings, with_hpo: bool, hpo_dir: Path | None) -> dict:
    """What a built graph depends on; `hpo_dir` (the --hpo-dir option) overrides the HPO release in use.
    A release fetched here adds its tag and each file's sha256 (recorded at its fetch)."""
    dump = source_folder(settings, FPKG) / "FPKG.dump"
    inputs = {"build_version": BUILD_VERSION, "dump_size": dump.stat().st_size, "with_hpo": with_hpo}
    if with_hpo:
        hpo = hpo_dir or hpo_folder(settings)
        inputs["hpo"] = release_fingerprint(hpo)
        fetched = marker(hpo)
        if fetched:
            inputs["hpo_release"] = {"release": fetched["release"],
                                     "sha256": {name: file["sha256"] for name, file in fetched["files"].items()}}
        inputs["mondo"] = tables_fingerprint(mondo_folder(settings))
        inputs["phenopacket_store"] = phenopacket_store_sha256(settings)  # a changed release zip rebuilds
    return inputs


def mondo_folder(settings: Settings) -> Path:
    """MONDO's identity tables (fetched and derived from MONDO's own files when missing)."""
    return source_folder(settings, MONDO)


def assemble_graph(settings: Settings, *, with_hpo: bool = True,
                   hpo_dir: Path | None = None) -> tuple[Graph, BuildReport]:
    """The portable graph: the FPKG dump, merged with the HPO layer unless `with_hpo` is off."""
    report = BuildReport(with_hpo, _inputs(settings, with_hpo, hpo_dir))
    started = time.perf_counter()
    graph = read_dump(source_folder(settings, FPKG) / "FPKG.dump")
    report.variants = clean_variants(graph).summary()
    tag_fpkg_sources(graph)
    report.seconds["read_dump"] = round(time.perf_counter() - started, 2)
    if with_hpo:
        started = time.perf_counter()
        layer = load_hpo_layer(hpo_dir or hpo_folder(settings), settings.cache_dir)
        report.hpo_release = layer.release
        mondo = Mondo.load(mondo_folder(settings))
        report.mondo_release = mondo.release
        report.seconds["hpo_layer"] = round(time.perf_counter() - started, 2)
        started = time.perf_counter()
        patients = _read_patients(settings)
        report.seconds["patients_read"] = round(time.perf_counter() - started, 2)
        started = time.perf_counter()
        merge_report = merge_hpo(graph, layer, mondo, patients)
        report.identity = {**merge_report.identity.summary(), "series_links": merge_report.series.counts()}
        report.merged = dict(merge_report.merged)
        report.added = {"nodes": dict(merge_report.added_nodes),
                        "relationships": dict(merge_report.added_relationships),
                        "relationships_merged": dict(merge_report.merged_relationships)}
        if merge_report.patients is not None:
            report.patients = {**merge_report.patients.summary(), "source": patients.source,
                               "sha256": patients.sha256}
        report.seconds["merge"] = round(time.perf_counter() - started, 2)
    report.counts = {"nodes": len(graph.nodes), "relationships": len(graph.relationships),
                     "labels": dict(graph.label_counts()), "types": dict(graph.type_counts())}
    return graph, report


def _read_patients(settings: Settings) -> StoreRead:
    """phenopacket-store's published patients (its release fetched first when missing)."""
    return read_store(source_folder(settings, PHENOPACKET_STORE), settings.cache_dir)


def manifest_path(settings: Settings) -> Path:
    return settings.cache_dir / f"graph-{settings.graph_backend}-{settings.graph_name}.json"


def build(store, settings: Settings, *, with_hpo: bool = True, hpo_dir: Path | None = None) -> BuildReport:
    """Build into `store` (atomically: a failure leaves the previous graph), snapshot it and
    record the manifest."""
    graph, report = assemble_graph(settings, with_hpo=with_hpo, hpo_dir=hpo_dir)
    started = time.perf_counter()
    store.load(graph, indexes=LOOKUP_INDEXES)
    report.seconds["load"] = round(time.perf_counter() - started, 2)
    started = time.perf_counter()
    store.snapshot()
    report.seconds["snapshot"] = round(time.perf_counter() - started, 2)
    path = manifest_path(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(asdict(report), indent=1))
    return report


def ensure_built(store, settings: Settings, *, with_hpo: bool = True, hpo_dir: Path | None = None,
                 added_relationships: int = 0, progress: Callable[[str], None] = lambda _: None) -> BuildReport:
    """Build only when the store does not already hold the graph these inputs give
    (`added_relationships`: written on top of the build since, e.g. curated facts, not compared);
    `progress` is told when a build begins and ends."""
    nodes, relationships = stored_totals(store)  # an unreachable store fails here, not after minutes of building
    path = manifest_path(settings)
    if path.exists():
        previous = BuildReport(**json.loads(path.read_text()))
        if (previous.inputs == _inputs(settings, with_hpo, hpo_dir)
                and nodes == previous.counts.get("nodes")
                and relationships - added_relationships == previous.counts.get("relationships")):
            previous.skipped = True
            return previous
    progress("building the graph from the FPKG dump" + (", the HPO, MONDO and the published patients (a first "
                                                         "start, or a source changed): about half a minute"
                                                         if with_hpo else " (a first start, or it changed)"))
    report = build(store, settings, with_hpo=with_hpo, hpo_dir=hpo_dir)
    progress(f"the graph is built: {report.counts['nodes']:,} nodes, {report.counts['relationships']:,} "
             f"relationships, in {sum(report.seconds.values()):.0f} s")
    return report


def built_relationships(settings: Settings) -> int | None:
    """How many relationships the last build wrote (its manifest), None before any."""
    path = manifest_path(settings)
    return json.loads(path.read_text())["counts"].get("relationships") if path.is_file() else None


def stored_totals(store) -> tuple[int, int]:
    """The nodes and relationships the store holds; (0, 0) when it holds no graph."""
    try:
        return store.totals()
    except GraphNotLoaded:
        return 0, 0
