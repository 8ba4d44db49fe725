"""python -m bench reading: how the reader reads clinicians' descriptions (bench/data/reading/).

    python -m bench reading [--split dev|test|all] [--sets clinical,...] [--json]

Each description is read as the description box reads it (`Pipeline.read`, service/reader.py) and compared with
what a careful reader takes from it (bench/data/reading/README.md):
- present findings: recall and precision, *exact* (the gold HPO term, or another id it lists as equally meant) and
  *related* (also a term above or below it in the HPO, other than the most general ones), reported apart;
- polarity errors: a gold finding read with another polarity (present read absent, absent or a relative's or a
  hedged one read present, ...);
- genes read wrongly: a gene read that is not the patient's (an ordinary word, a gene tested negative), or the
  patient's gene missed;
- each figure by category (what the description tests).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from bench.results import variant_name
from bench.runtime import progress
from fpkg.errors import BenchError
from kg_dump.sources import hpo_folder
from ner.context import ABSENT, FAMILY_HISTORY, HEDGED, PRESENT

READING_DIR = Path(__file__).resolve().parent / "data" / "reading"
SETS = ("clinical", "phrases")
POLARITIES = (PRESENT, ABSENT, FAMILY_HISTORY, HEDGED)
MIN_RELATED_IC = 1.5  # a term this general ("Abnormality of the eye") is no related match


def load(sets: list[str], split: str) -> list[dict[str, Any]]:
    items = []
    for name in sets:
        for part in (("dev", "test") if split == "all" else (split,)):
            path = READING_DIR / f"{name}_{part}.jsonl"
            if not path.is_file():
                raise BenchError(f"no reading set {path.name} in {READING_DIR}")
            with open(path, encoding="utf-8") as f:
                items += [{**json.loads(line), "set": name} for line in f if line.strip()]
    return items


class Scorer:
    """Matches read terms against gold ones, exactly or as related terms (`ontology`: diagnosis/ontology.py)."""

    def __init__(self, ontology):
        self.ontology = ontology

    def ids(self, gold: dict) -> set[str]:
        return {gold["hpo"], *gold.get("also", ())}

    def related(self, read_id: str, gold: dict) -> bool:
        index = self.ontology.index_of_hpo
        a = index.get(read_id)
        for hpo_id in self.ids(gold):
            b = index.get(hpo_id)
            if a is None or b is None:
                continue
            general = b if self.ontology.is_below[b, a] else a if self.ontology.is_below[a, b] else None
            if general is not None and self.ontology.ic[general] >= MIN_RELATED_IC:
                return True
        return False

    def score(self, item: dict, reading) -> dict[str, Any]:
        read = defaultdict(set)
        for finding in reading.findings:
            if finding.hpo_id:
                read[finding.polarity].add(finding.hpo_id)
        gold = {polarity: item.get(polarity, []) for polarity in POLARITIES}
        out: dict[str, Any] = {"id": item["id"], "set": item["set"], "lang": item.get("lang", "en"),
                           "categories": item["categories"],
                               "misses": [], "extras": [], "polarity_errors": [], "gene": None}
        hit_exact = hit_related = 0
        for entry in gold[PRESENT]:
            if self.ids(entry) & read[PRESENT]:
                hit_exact += 1
                hit_related += 1
            elif any(self.related(r, entry) for r in read[PRESENT]):
                hit_related += 1
            else:
                out["misses"].append(entry["name"])
        right_exact = sum(any(r in self.ids(e) for e in gold[PRESENT]) for r in read[PRESENT])
        right_related = sum(any(r in self.ids(e) or self.related(r, e) for e in gold[PRESENT]) for r in read[PRESENT])
        out["extras"] = [self.ontology.names[self.ontology.index_of_hpo[r]] for r in read[PRESENT]
                         if not any(r in self.ids(e) or self.related(r, e) for e in gold[PRESENT])]
        for polarity, entries in gold.items():
            for entry in entries:
                said = {other for other in POLARITIES if other != polarity and self.ids(entry) & read[other]}
                if said and not self.ids(entry) & read[polarity]:
                    out["polarity_errors"].append(f"{entry['name']}: {polarity} read as {', '.join(sorted(said))}")
        absent_found = sum(bool(self.ids(e) & read[ABSENT]) for e in gold[ABSENT])
        out.update(gold_present=len(gold[PRESENT]), read_present=len(read[PRESENT]), hit_exact=hit_exact,
                   hit_related=hit_related, right_exact=right_exact, right_related=right_related,
                   gold_absent=len(gold[ABSENT]), absent_found=absent_found)
        wanted, got = item.get("gene"), reading.gene
        if got != wanted:
            out["gene"] = f"read {got or 'none'}, meant {wanted or 'none'}"
        out["gene_wrong"] = bool(got and got != wanted)
        out["gene_missed"] = bool(wanted and got != wanted and not out["gene_wrong"])
        return out


def totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def share(num: int, den: int) -> float | None:
        return round(num / den, 4) if den else None

    sums = Counter()
    for row in rows:
        sums.update({k: row[k] for k in ("gold_present", "read_present", "hit_exact", "hit_related", "right_exact",
                                          "right_related", "gold_absent", "absent_found")})
        sums.update(polarity_errors=len(row["polarity_errors"]), genes_wrong=row["gene_wrong"],
                    genes_missed=row["gene_missed"])
    return {"descriptions": len(rows), "findings": sums["gold_present"],
            "recall_exact": share(sums["hit_exact"], sums["gold_present"]),
            "recall_related": share(sums["hit_related"], sums["gold_present"]),
            "precision_exact": share(sums["right_exact"], sums["read_present"]),
            "precision_related": share(sums["right_related"], sums["read_present"]),
            "absent_recall": share(sums["absent_found"], sums["gold_absent"]),
            "polarity_errors": sums["polarity_errors"], "genes_wrong": sums["genes_wrong"],
            "genes_missed": sums["genes_missed"]}


def run(pipeline, sets: list[str], split: str, fasthpocr=None) -> dict[str, Any]:
    """The reader's figures on the chosen sets; with `fasthpocr` (an annotate function, bench/fasthpocr.py), the
    published recogniser's on the same texts beside them."""
    scorer = Scorer(pipeline.ontology)
    items = load(sets, split)
    result = {"split": split, "sets": sets,
              **scored([scorer.score(item, pipeline.read(item["text"])) for item in progress(items, "reading")])}
    if fasthpocr is not None:
        from bench import fasthpocr as published

        rows = [scorer.score(item, published.read(fasthpocr, item["text"])) for item in progress(items, "FastHPOCR")]
        result["fasthpocr"] = scored(rows)
    return result


def scored(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_category, by_set, by_language = defaultdict(list), defaultdict(list), defaultdict(list)
    for row in rows:
        by_set[row["set"]].append(row)
        by_language[row["lang"]].append(row)
        for category in row["categories"]:
            by_category[category].append(row)
    return {**totals(rows), "by_set": {name: totals(found) for name, found in sorted(by_set.items())},
            "by_language": {name: totals(found) for name, found in sorted(by_language.items())},
            "by_category": {name: totals(found) for name, found in sorted(by_category.items())}, "items": rows}


def summary(result: dict[str, Any]) -> str:
    def line(name: str, t: dict[str, Any]) -> str:
        return (f"{name}: {t['descriptions']} descriptions, {t['findings']} present findings; recall "
                f"{_pct(t['recall_exact'])} exact / {_pct(t['recall_related'])} related, precision "
                f"{_pct(t['precision_exact'])} / {_pct(t['precision_related'])}; absent read "
                f"{_pct(t['absent_recall'])}; polarity errors {t['polarity_errors']}; genes wrong "
                f"{t['genes_wrong']}, missed {t['genes_missed']}")

    lines = [line(f"reading ({result['split']})", result)]
    groups = [*result["by_set"].items(), *(result["by_language"].items() if len(result["by_language"]) > 1 else ()),
              *result["by_category"].items()]
    lines += ["  " + line(name, t) for name, t in groups]
    if "fasthpocr" in result:
        lines.append(line("FastHPOCR, the same texts (concepts only: no negation, no genes)", result["fasthpocr"]))
        lines += ["  " + line(name, t) for name, t in result["fasthpocr"]["by_set"].items()]
    for row in result["items"]:
        said = [*(f"missed {m}" for m in row["misses"]), *(f"extra {e}" for e in row["extras"]),
                *row["polarity_errors"], *([row["gene"]] if row["gene"] else [])]
        if said:
            lines.append(f"  {row['id']}: " + "; ".join(said))
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("reading", parents=[common], help="how descriptions are read: findings, "
                                   "polarity, genes", description=__doc__,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--sets", default=",".join(SETS), help=f"comma-separated (default: {','.join(SETS)}; also "
                        "languages)")
    parser.add_argument("--compare-fasthpocr", action="store_true",
                        help="FastHPOCR on the same texts (its index is built once into the cache: over ten minutes)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    sets = [name.strip() for name in args.sets.split(",") if name.strip()]
    annotate = None
    if args.compare_fasthpocr:
        from bench import fasthpocr

        hpo = context.pipeline.findings.hpo
        folder = fasthpocr.index_folder(context.settings.cache_dir, hpo.release)
        annotate = fasthpocr.annotator(hpo_folder(context.settings) / "hp.obo", folder).annotate
    result = run(context.pipeline, sets, args.split, annotate)
    return variant_name(*sets, args.split, "fasthpocr" if annotate else ""), result, summary(result)
