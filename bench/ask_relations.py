"""python -m bench ask-relations: is what a question asks recognised however it is worded?

    python -m bench ask-relations [--questions FILE] [--modes cypher,vector] [--json]

Reads bench/data/ask_paraphrases.csv (relation, form, question, names: our own wordings, none from
an evaluation file; at least 40 per relation, summaries included), splits it into dev and test by a
hash of each wording (`form`: a wording and all its rows fall on one side), asks each question in
each mode and reports per relation and split the share answered as asked:
- a list relation: the retrieval's intent is that relation, with facts;
- `intersection`: the answer says what the names have in common ("… linked to both …", "… have both …",
  or that nothing is recorded for both); `count`: its first line is a number of things linked to the name;
- `summary`: the answer is the named entity's summary and names its genes or diseases and findings
  (checked against the graph's own lists, read with the templates).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import re
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench.runtime import percentiles, progress
from fpkg.errors import BenchError
from retrieval.cypher.templates import run_template
from retrieval.result import RetrievalResult

PARAPHRASES = Path(__file__).resolve().parent / "data" / "ask_paraphrases.csv"
SPLITS = ("dev", "test")
TARGET = 0.95
INTERSECTION = re.compile(r"(linked to|ha(ve|s)) (both|all of) "
                          r"|^Not recorded: (the graph links no|no disease in the graph)")
COUNT = re.compile(r"^\d+ [\w ]+ linked to .+ in the graph[.,]")
# what a summary must name, per label of its entity: (template for the expected names, side)
SUMMARY_NEEDS = {"Disease": ("genes_of_disease", "phenotypes_of_disease"),
                 "Genotype": ("diseases_of_gene", "phenotypes_of_gene"),
                 "FacePhenotype": ("diseases_with_phenotypes",)}


def split_of(form: str) -> str:
    """dev or test, fixed by the wording's hash."""
    return SPLITS[int(hashlib.sha256(form.encode()).hexdigest(), 16) % 2]


def read_paraphrases(path: Path) -> list[dict[str, str]]:
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError as e:
        raise BenchError(f"cannot read {path}: {e}") from e
    missing = {"relation", "form", "question", "names"} - set(rows[0] if rows else {})
    if missing:
        raise BenchError(f"{path.name} lacks the column(s) {', '.join(sorted(missing))}")
    return [{**row, "split": split_of(row["form"])} for row in rows]


def answered(pipeline, row: dict[str, str], found: RetrievalResult) -> bool:
    relation, lead = row["relation"], found.lead or ""
    if relation == "intersection":
        return bool(INTERSECTION.search(lead))
    if relation == "count":
        return bool(COUNT.search(lead))
    if relation == "summary":
        return _summary_ok(pipeline, row["names"].split(" | ")[0], found)
    return found.intent == relation and bool(found.triples)


def _summary_ok(pipeline, name: str, found: RetrievalResult) -> bool:
    if not (found.intent or "").startswith("summary_of") or not found.lead:
        return False
    first = found.lead.split("\n", 1)[0].casefold()
    entity = next((link for link in found.links if link.node_id is not None and link.name
                   and first.startswith(link.name.casefold())), None)
    if entity is None or entity.name.casefold() not in (name.casefold(), *_names_of(pipeline, name)):
        return False
    text = found.lead.casefold()
    for template in SUMMARY_NEEDS[entity.label]:
        triples, _ = run_template(pipeline.store, template, [entity.node_id])
        expected = {t.tail if t.head_id == entity.node_id else t.head for t in triples}
        if expected and not any(item.casefold() in text for item in expected):
            return False
    return True


def _names_of(pipeline, name: str) -> tuple[str, ...]:
    """The graph's own names for a name as typed ('low-set ears' is Low-set ears)."""
    found = [pipeline.linker.link(name, kind) for kind in ("DISEASE", "GENE", "FACIAL_PHENOTYPE")]
    return tuple(link.name.casefold() for link in found if link.node_id is not None and link.name)


def run(pipeline, path: Path, modes: list[str]) -> dict[str, Any]:
    rows = read_paraphrases(path)
    result: dict[str, Any] = {"questions": len(rows), "file": path.name, "target": TARGET, "modes": {}}
    failed_checks = []
    for mode in modes:
        retriever = pipeline.retriever(mode)
        counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
        misses: list[dict[str, str]] = []
        times = []
        for row in progress(rows, f"ask-relations {mode}"):
            started = time.perf_counter()
            found = retriever.retrieve(row["question"])
            times.append((time.perf_counter() - started) * 1000)
            ok = answered(pipeline, row, found)
            counts[(row["relation"], row["split"])][0] += ok
            counts[(row["relation"], row["split"])][1] += 1
            if not ok:
                misses.append({"split": row["split"], "relation": row["relation"], "question": row["question"],
                               "intent": found.intent or "", "lead": (found.lead or "")[:120]})
        table = {relation: {split: {"answered": counts[(relation, split)][0], "n": counts[(relation, split)][1],
                                    "coverage": round(counts[(relation, split)][0] / counts[(relation, split)][1], 3)
                                    if counts[(relation, split)][1] else None} for split in SPLITS}
                 for relation in dict.fromkeys(row["relation"] for row in rows)}
        failed_checks += [f"{mode} {relation} test {cell['test']['coverage']}" for relation, cell in table.items()
                          if cell["test"]["n"] and cell["test"]["coverage"] < TARGET]
        result["modes"][mode] = {"relations": table, "misses": misses, "retrieval_ms": percentiles(times)}
    result["failed_checks"] = failed_checks
    return result


def summary(result: dict[str, Any]) -> str:
    lines = [f"ask-relations: {result['questions']} paraphrases ({result['file']}), dev/test by wording hash"]
    for mode, found in result["modes"].items():
        lines.append(f"\n[{mode}] retrieval p50 {found['retrieval_ms'].get('p50')} ms")
        lines.append(f"{'relation':26} {'dev':>12} {'test':>12}")
        for relation, cell in found["relations"].items():
            shown = [f"{c['answered']}/{c['n']} {100 * (c['coverage'] or 0):.0f}%" for c in cell.values()]
            lines.append(f"{relation:26} {shown[0]:>12} {shown[1]:>12}")
        for miss in found["misses"][:15]:
            lines.append(f"  miss ({miss['split']}, {miss['relation']}): {miss['question']} -> {miss['intent']}")
    return "\n".join(lines)


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("ask-relations", parents=[common], help="relations recognised however worded",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=Path, default=PARAPHRASES, help="a paraphrase CSV (default: ours)")
    parser.add_argument("--modes", default="cypher,vector", help="comma-separated modes (default: cypher,vector)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    modes = [mode.strip() for mode in args.modes.split(",") if mode.strip()]
    result = run(context.pipeline, args.questions, modes)
    return args.questions.stem, result, summary(result)
