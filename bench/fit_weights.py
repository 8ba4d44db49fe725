"""python -m bench fit-weights: the weight of each kind of evidence, fitted on the development cases.

    python -m bench fit-weights [--sets phenopackets,lopo] [--limit N] [--passes P] [--dry-run] [--json]

Each dev case (`generalise`'s sets, dev split only, each patient's own paper held out) is prepared
once (`DiagnosisRanker.prepare`: every candidate's unweighted part of each kind); the weights are then
searched by coordinate ascent over a grid of multiples, re-ranking every case in memory
(`DiagnosisRanker.order`) at each step. The objective is the mean, over the (set, condition) cells, of
top-1 + 0.25 × top-10: each cell counts the same, whatever its size. The gene's weight is held at its
value (it sets the scale); a kind in KEPT_ON is never weighed at zero. Writes
diagnosis/evidence/weights.json unless --dry-run; the test split is never read here: report it with
`generalise` after fitting.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from datetime import date
from typing import Any

from bench import generalise
from bench.runtime import progress
from diagnosis.evidence import KINDS, WEIGHTS_PATH
from fpkg.errors import BenchError
from retrieval.hold_out import HoldOut

MULTIPLES = (0.0, 0.25, 0.5, 0.75, 1.0, 1.33, 2.0, 3.0)
FIXED = "gene"  # the scale: every other weight is relative to it
TOP10_SHARE = 0.25
# kinds a clinician expects to count, so the fit may make them small but never switch them off: an
# excluded finding the disease nearly always shows must still speak against it (issue 43)
KEPT_ON = frozenset({"contradicted"})


def prepare(pipeline, sets: list[str], limit: int | None) -> dict[tuple[str, str], list[tuple[Any, Any]]]:
    """(set, condition) -> [(dev case, its prepared ranking)]."""
    cases, _ = generalise.build_cases(pipeline, sets)
    groups = generalise.select(cases, ["dev"], limit)
    prepared: dict[tuple[str, str], list] = defaultdict(list)
    for (set_name, condition, _), group in groups.items():
        for case in progress(group, f"fit-weights {set_name} {condition}"):
            ready = pipeline.ranker.prepare(case.diagnosis_case(), HoldOut.of(pipeline.store, case.exclude_pmids))
            prepared[(set_name, condition)].append((case, ready))
    return prepared


def evaluate(ranker, prepared: dict, weights: dict[str, float]) -> dict[str, Any]:
    cells = {}
    for key, group in prepared.items():
        positions = [generalise.ranker_position(ranker.order(ready, weights)[0], case) for case, ready in group]
        top1 = sum(p == 1 for p in positions) / len(positions)
        top10 = sum(p is not None for p in positions) / len(positions)
        cells[" ".join(key)] = {"n": len(positions), "top1": round(top1, 4), "top10": round(top10, 4),
                                "objective": top1 + TOP10_SHARE * (top1 if key[1] == "four_options" else top10)}
    return {"objective": round(sum(c["objective"] for c in cells.values()) / max(len(cells), 1), 5), "cells": cells}


def search(ranker, prepared: dict, start: dict[str, float], passes: int) -> tuple[dict[str, float], list]:
    weights, best = dict(start), evaluate(ranker, prepared, start)
    trail = [{"weights": dict(weights), "objective": best["objective"]}]
    for _ in range(passes):
        improved = False
        for name in [kind.name for kind in KINDS if kind.name != FIXED]:
            base = weights[name] or start.get(name) or 0.5
            for multiple in MULTIPLES:
                trial = {**weights, name: round(base * multiple, 4)}
                if trial[name] == weights[name] or (name in KEPT_ON and trial[name] <= 0):
                    continue
                found = evaluate(ranker, prepared, trial)
                if found["objective"] > best["objective"] + 1e-9:
                    weights, best, improved = trial, found, True
                    trail.append({"weights": dict(weights), "objective": best["objective"]})
        if not improved:
            break
    return weights, trail


def register(subparsers, common: argparse.ArgumentParser) -> None:
    parser = subparsers.add_parser("fit-weights", parents=[common], help="fit each evidence kind's weight on dev",
                                   description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sets", type=generalise.names_list(tuple(generalise.CONDITIONS)),
                        default=["phenopackets", "lopo"])
    parser.add_argument("--limit", type=int, help="at most N dev cases per set and condition")
    parser.add_argument("--passes", type=int, default=3, help="coordinate-ascent passes over the weights")
    parser.add_argument("--dry-run", action="store_true", help="report the fitted weights without writing them")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, context) -> tuple[str, dict[str, Any], str]:
    if args.limit is not None and args.limit < 1:
        raise BenchError(f"--limit must be at least 1, not {args.limit}")
    pipeline = context.pipeline
    started = time.perf_counter()
    prepared = prepare(pipeline, args.sets, args.limit)
    start = {kind.name: pipeline.ranker.weights.get(kind.name, 0.0) for kind in KINDS}
    before = evaluate(pipeline.ranker, prepared, start)
    weights, trail = search(pipeline.ranker, prepared, start, args.passes)
    after = evaluate(pipeline.ranker, prepared, weights)
    fitted_on = {"command": "python -m bench " + " ".join(context.argv), "date": date.today().isoformat(),
                 "sets": args.sets, "split": "dev", "cases": {k: c["n"] for k, c in after["cells"].items()},
                 "objective": after["objective"], "before": before["objective"]}
    if not args.dry_run:
        WEIGHTS_PATH.write_text(json.dumps({"weights": weights, "fitted_on": fitted_on}, indent=1) + "\n")
    result = {"weights": weights, "start": start, "before": before, "after": after, "trail": trail,
              "written": not args.dry_run, "seconds": round(time.perf_counter() - started, 1)}
    lines = [f"fit-weights on dev ({', '.join(args.sets)}): objective {before['objective']} -> {after['objective']}",
             "weights: " + ", ".join(f"{k} {v:g}" for k, v in weights.items()), "",
             "| cell | n | top-1 before | top-1 after | top-10 before | top-10 after |",
             "|---|---:|---:|---:|---:|---:|"]
    for key, cell in after["cells"].items():
        was = before["cells"][key]
        lines.append(f"| {key} | {cell['n']} | {was['top1']:.1%} | {cell['top1']:.1%} | {was['top10']:.1%} "
                     f"| {cell['top10']:.1%} |")
    return "dev", result, "\n".join(lines)
