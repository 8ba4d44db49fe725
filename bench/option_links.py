"""python -m bench option-links: does every answer option name link to its own disease?

    python -m bench option-links [--questions phenopackets_dev_selective.csv] [--split dev|test] [--json]

Each option of each selective question is linked as the ranker links it (`retrieval.options.link_option`)
and checked against the OMIM id the phenopacket set gives that disease name (`phenopackets_dev.jsonl`):
**right** when the linked node (or, for a disease the graph lacks, the MONDO link) carries that id,
**declared unknown** when nothing was linked, **wrong** when another disease was. A wrong link reads an
option as another disease, which then takes that disease's genes and phenotypes.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path
from typing import Any

from bench.devsets import SPLITS
from bench.diagnosis import read_questions
from bench.results import variant_name
from bench.runtime import phenopackets_dir, progress, question_file
from fpkg.errors import BenchError
from retrieval.options import link_option, split_question

SELECTIVE = "phenopackets_dev_selective.csv"
CASES = "phenopackets_dev.jsonl"
NODE_IDS = "MATCH (d:Disease) WHERE d.nid IN $ids RETURN d.nid AS id, d.disease_id AS did, d.other_ids AS others"


def omim_by_name(folder: Path) -> dict[str, str]:
    """Each disease name of the phenopacket set -> its OMIM id."""
    path = folder / CASES
    if not path.is_file():
        raise BenchError(f"no {CASES} in {folder} (set PHENOPACKETS_DIR to the phenopacket development set)")
    with open(path, encoding="utf-8") as f:
        return {case["disease"]: case["omim_id"] for case in map(json.loads, f)}


def run(pipeline, path: Path, omim_of: dict[str, str], split: str | None = None) -> dict[str, Any]:
    names = sorted({name for q in read_questions(path, split=split) for name in split_question(q.text)[1].values()})
    links = {name: link_option(name, pipeline.linker) for name in progress(names, "option links")}
    node_ids = sorted({link.node_id for link in links.values() if link.node_id is not None})
    rows = pipeline.store.query(NODE_IDS, {"ids": node_ids}, timeout_ms=10_000)
    ids_of = {row["id"]: {row["did"], *str(row["others"] or "").split(";")} - {None, ""} for row in rows}
    items = []
    for name, link in links.items():
        wanted = omim_of.get(name)
        ids = ids_of.get(link.node_id, set()) if link.node_id is not None else set(link.ids)
        verdict = "unknown" if not ids else "right" if wanted in ids else "wrong"
        items.append({"option": name, "omim_id": wanted, "linked": link.name, "method": link.method,
                      "ids": sorted(ids), "in_graph": link.node_id is not None, "verdict": verdict})
    return {"questions": path.stem, "split": split, "names": len(items),
            "verdicts": dict(Counter(item["verdict"] for item in items)),
            "methods": dict(Counter(item["method"] for item in items)),
            "outside_graph": sum(not item["in_graph"] and item["verdict"] == "right" for item in items),
            "items": items}


def summary(result: dict[str, Any]) -> str:
    verdicts = result["verdicts"]
    lines = [f"{result['questions']}{' (' + result['split'] + ')' if result['split'] else ''}: "
             f"{result['names']} option names; right {verdicts.get('right', 0)} (of which "
             f"{result['outside_graph']} known to MONDO, outside the graph's annotations), declared unknown "
             f"{verdicts.get('unknown', 0)}, wrong {verdicts.get('wrong', 0)}",
             "  by method: " + ", ".join(f"{k} {v}" for k, v in sorted(result["methods"].items()))]
    lines += [f"  wrong: {item['option']!r} ({item['omim_id']}) read as {item['linked']!r} {item['ids']}"
              for item in result["items"] if item["verdict"] == "wrong"]
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("option-links", parents=[common], help="does each option name link to its disease",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, help=f"a selective question file (default: {SELECTIVE})")
    parser.add_argument("--split", choices=SPLITS, help="only the questions whose disease falls in this split")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    path = question_file(context.settings, args.questions, SELECTIVE)
    result = run(context.pipeline, path, omim_by_name(phenopackets_dir(context.settings)), args.split)
    return variant_name(path.stem, args.split), result, summary(result)
