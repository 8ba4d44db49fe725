"""Command line of kg_dump: `python -m kg_dump <command> ...`.

Each subcommand is a `cmd_<name>(args) -> int` function registered in `build_parser()`.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from kg_dump.dump_reader import DumpError, read_dump_with_stats
from kg_dump.graph import Graph

EXIT_OK = 0
EXIT_INPUT_ERROR = 2  # a dump or argument the user has to fix


def cmd_export(args: argparse.Namespace) -> int:
    """Decode the dump and write nodes.jsonl and relationships.jsonl."""
    started = time.perf_counter()
    try:
        graph, stats = read_dump_with_stats(args.dump)
    except DumpError as e:
        print(f"error: {e}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    read_seconds = time.perf_counter() - started
    try:
        graph.write_jsonl(args.out)
    except OSError as e:
        print(f"error: cannot write to {args.out}: {e}", file=sys.stderr)
        return EXIT_INPUT_ERROR
    print(f"store format: {stats.store_format}")
    print_counts(graph)
    _print_counter("property values by storage type", stats.property_types)
    print(f"\nwrote {args.out / 'nodes.jsonl'} and {args.out / 'relationships.jsonl'}")
    print(f"elapsed: {time.perf_counter() - started:.2f} s (reading the dump {read_seconds:.2f} s)")
    return EXIT_OK


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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.handler(args)


if __name__ == "__main__":
    sys.exit(main())
